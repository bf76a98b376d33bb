/* A plain C program (no vigil instrumentation) with a lock API that
 * tests/lit/bpf/uprobe.test and reactor-stop.test watch through uprobes.
 *
 *   locks ok      lock and unlock two locks correctly
 *   locks double  lock `b` twice (the seeded bug), then unlock it
 *   locks trylock take `a` with my_trylock (returns 0 on success)
 *   locks hang    double-lock `b` every 10 ms, forever
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int a, b;

__attribute__((noinline)) void my_lock(int *l)
{
	*(volatile int *)l += 1;
}

__attribute__((noinline)) void my_unlock(int *l)
{
	*(volatile int *)l -= 1;
}

__attribute__((noinline)) int my_trylock(int *l)
{
	if (*(volatile int *)l)
		return -1;
	*(volatile int *)l = 1;
	return 0;
}

__attribute__((noinline)) static void take_twice(int *l)
{
	my_lock(l);
	my_lock(l); /* the double lock */
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "ok";

	if (!strcmp(what, "hang")) {
		printf("locks hang\n");
		fflush(stdout);
		for (;;) {
			take_twice(&b);
			my_unlock(&b);
			usleep(10000);
		}
	}
	if (!strcmp(what, "ok")) {
		my_lock(&a);
		my_lock(&b);
		my_unlock(&b);
		my_unlock(&a);
	} else if (!strcmp(what, "double")) {
		my_lock(&a);
		take_twice(&b);
		my_unlock(&b);
		my_unlock(&a);
	} else if (!strcmp(what, "trylock")) {
		if (my_trylock(&a) == 0)
			my_unlock(&a);
	} else {
		fprintf(stderr, "usage: locks ok|double|trylock|hang\n");
		return 2;
	}
	printf("locks %s: a=%p b=%p\n", what, (void *)&a, (void *)&b);
	return 0;
}
