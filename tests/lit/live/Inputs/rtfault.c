/*
 * A real-time thread that takes page faults, for real.  The victim thread
 * first sleeps and faults as a normal task (so the pagefault monitor starts, as the
 * kernel's does), becomes SCHED_FIFO 50, sleeps 1 ms (a context switch
 * shows its new priority), then writes to 16 pages: with `mlock` as
 * argument they were written and locked before it became real-time (no
 * fault: the control); without, they are fresh (faults: violations).  It
 * returns to SCHED_OTHER before printing.  Link with -z now: no lazy symbol
 * binding (itself a fault) while real-time.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define PAGES 16

static int locked;

static void *victim(void *arg) {
  (void)arg;
  printf("victim tid %d\n", gettid());
  fflush(stdout);
  /* A context switch as a normal task first, so that the recording shows
   * its priority (a thread's first switch-in from an idle cpu is not
   * always in the trace on this kernel), then faults: the monitor starts. */
  struct timespec ms = {0, 1000000};
  nanosleep(&ms, NULL);
  static char warm[4096 * 4];
  memset(warm, 1, sizeof warm); /* faults as a normal task: the monitor starts */
  char *buf = mmap(NULL, PAGES * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (buf == MAP_FAILED)
    return NULL;
  if (locked) {
    memset(buf, 2, PAGES * 4096);
    if (mlockall(MCL_CURRENT | MCL_FUTURE))
      perror("mlockall");
  }
  nanosleep(&ms, NULL); /* and once more after the mmap, still normal */
  struct sched_param rt = {.sched_priority = 50}, normal = {.sched_priority = 0};
  if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &rt)) {
    perror("SCHED_FIFO");
    return NULL;
  }
  nanosleep(&ms, NULL);
  for (int i = 0; i < PAGES; i++)
    buf[i * 4096] = 3;
  pthread_setschedparam(pthread_self(), SCHED_OTHER, &normal);
  printf("victim wrote %d pages as SCHED_FIFO (%s)\n", PAGES, locked ? "pre-faulted and locked" : "fresh");
  return NULL;
}

int main(int argc, char **argv) {
  locked = argc > 1 && strcmp(argv[1], "mlock") == 0;
  pthread_t v;
  pthread_create(&v, NULL, victim, NULL);
  pthread_join(v, NULL);
  return 0;
}
