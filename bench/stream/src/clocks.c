/*
 * clocks.c — what one timestamp costs on this machine: the TSC read every
 * vigil record takes (rdtsc) and the CLOCK_MONOTONIC read (vDSO) that
 * LTTng-UST takes per event.  A floor under any per-event cost.
 *
 *   clocks N    prints rdtsc_ns X clock_gettime_ns Y
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long)t.tv_sec * 1000000000L + t.tv_nsec;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 10000000;
  uint64_t s = 0;
  long t0 = now_ns();
  for (long i = 0; i < n; i++)
    s += __builtin_ia32_rdtsc();
  long t1 = now_ns();
  for (long i = 0; i < n; i++)
    s += (uint64_t)now_ns();
  long t2 = now_ns();
  printf("rdtsc_ns %.3f clock_gettime_ns %.3f\n", (double)(t1 - t0) / n, (double)(t2 - t1) / n);
  return s == 42;
}
