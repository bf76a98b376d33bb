/*
 * getppid.c — a system call in a loop, for `vigil record --tracepoint
 * syscalls:sys_enter_getppid` (docs/record.md's tracepoint figure).
 *
 *   getppid CALLS    prints elapsed_ns E flush_ns E calls N threads 1 events N
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long)t.tv_sec * 1000000000L + t.tv_nsec;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 100000, s = 0;
  long t0 = now_ns();
  for (long i = 0; i < n; i++)
    s += syscall(SYS_getppid);
  long e = now_ns() - t0;
  printf("elapsed_ns %ld flush_ns %ld calls %ld threads 1 events %ld\n", e, e, n, n);
  return s == 42;
}
