/*
 * A starved task, for real: `victim` (SCHED_OTHER, pinned to cpu 0) sleeps
 * 50 ms; meanwhile `hog` (SCHED_FIFO 50, pinned to cpu 0) spins for 700 ms.
 * The victim is woken at 50 ms and cannot run before the hog stops: about
 * 650 ms runnable, over the shipped `runnable` model's 500 ms bound.  With
 * `fair` as argument the hog spins as SCHED_OTHER: the victim runs within a
 * few ms (the control).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void pin0(void) {
  cpu_set_t s;
  CPU_ZERO(&s);
  CPU_SET(0, &s);
  pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

static int fair;

static void *hog(void *arg) {
  (void)arg;
  pin0();
  pthread_setname_np(pthread_self(), "hog");
  if (!fair) {
    struct sched_param p = {.sched_priority = 50};
    if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &p)) {
      perror("SCHED_FIFO");
      return NULL;
    }
  }
  double end = now() + 0.7;
  while (now() < end)
    ;
  return NULL;
}

static void *victim(void *arg) {
  (void)arg;
  pin0();
  pthread_setname_np(pthread_self(), "victim");
  printf("victim tid %d\n", gettid());
  fflush(stdout);
  double due = now() + 0.05;
  usleep(50000);
  printf("victim ran %.0f ms after its wakeup was due\n", (now() - due) * 1e3);
  return NULL;
}

int main(int argc, char **argv) {
  fair = argc > 1 && strcmp(argv[1], "fair") == 0;
  pthread_t v, h;
  pthread_create(&v, NULL, victim, NULL);
  usleep(10000);
  pthread_create(&h, NULL, hog, NULL);
  pthread_join(v, NULL);
  pthread_join(h, NULL);
  return 0;
}
