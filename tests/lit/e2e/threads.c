// Per-thread automata see only their own thread's events; global automata
// see every thread's, and stay consistent (no crash) under contention.
// RUN: %vigil-cc -O1 %s -o %t -lpthread
// RUN: %t perthread-ok 2>&1 | FileCheck %s --check-prefix=OK
// RUN: env VIGIL_ON_FAILURE=log %t perthread-other 2>&1 | FileCheck %s --check-prefix=OTHER
// RUN: %t global-ok 2>&1 | FileCheck %s --check-prefix=OK
// RUN: env VIGIL_STATS=1 %t stress 2>&1 | FileCheck %s --check-prefix=STRESS
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <tesla.h>

void authorise(void) {}
int request(int auth);
void run(void);
void handle(void) { TESLA_WITHIN(request, previously(call(authorise))); }
void commit(void) { TESLA_GLOBAL(call(run), returnfrom(run), previously(call(authorise))); }

int request(int auth) { if (auth) authorise(); handle(); return 0; }

static pthread_barrier_t barrier;
static void *authorise_only(void *p) { (void)p; authorise(); pthread_barrier_wait(&barrier); pthread_barrier_wait(&barrier); return 0; }
static void *authorise_thread(void *p) { (void)p; authorise(); return 0; }
static void *worker(void *p) { for (int i = 0; i < 20000; i++) request((int)(long)p); return 0; }

void run(void) {
  pthread_t t;
  pthread_create(&t, 0, authorise_thread, 0); /* the event happens in another thread */
  pthread_join(t, 0);
  commit();
}

int main(int argc, char **argv) {
  const char *m = argv[1];
  pthread_barrier_init(&barrier, 0, 2);
  if (!strcmp(m, "perthread-ok")) request(1);
  if (!strcmp(m, "perthread-other")) {
    /* another thread authorises, this one does not: per-thread must fail */
    pthread_t t;
    pthread_create(&t, 0, authorise_only, 0);
    pthread_barrier_wait(&barrier);
    request(0);
    pthread_barrier_wait(&barrier);
    pthread_join(t, 0);
  }
  if (!strcmp(m, "global-ok")) run();
  if (!strcmp(m, "stress")) {
    pthread_t t[4];
    for (long i = 0; i < 4; i++) pthread_create(&t[i], 0, worker, (void *)1);
    for (int i = 0; i < 4; i++) pthread_join(t[i], 0);
    for (int i = 0; i < 3; i++) run();
  }
  fputs("done\n", stderr);
  return 0;
}
// OK-NOT: vigil
// OK: done
// OTHER: vigil: assertion failed at {{.*}}threads.c:{{[0-9]+}}:21
// OTHER: (missing-before-site)
// OTHER: done
// STRESS-NOT: assertion failed
// STRESS: done
// STRESS: vigil: statistics (2 assertions)
// STRESS-DAG: threads.c:{{[0-9]+}}:21{{ +}}80000{{ +}}{{[0-9]+}}{{ +}}80000{{ +}}0
// STRESS-DAG: threads.c:{{[0-9]+}}:21{{ +}}3{{ +}}{{[0-9]+}}{{ +}}3{{ +}}0
