/*
 * tick.c — the stream benchmarks' workload (bench/README.md, "Event stream"), in the
 * spirit of ReBIS's inscount: every thread calls a cheap function many
 * times, and each call is two events (its entry with the argument, its
 * return with the result), so the program is almost nothing but events.
 *
 *   tick CALLS THREADS [WARMUP]   CALLS in total, split evenly over THREADS
 *
 * WARMUP (per thread, default 0): calls made before the barrier, untimed,
 * then (traced builds) vigil_stream_flush(): the thread's ring has then been
 * written through once, so its pages are faulted in and the timed calls
 * measure the producer, not the kernel's page faults.
 *
 * The total work is fixed: THREADS only changes how it is divided.  Threads
 * wait at a barrier, stamp their own start and end (main may not run again
 * before they finish on 2 cores), and the program prints
 *
 *   elapsed_ns E flush_ns F calls N threads T events V start_ns S
 *
 * E: first start to last end; F: E plus, in traced builds, the time until
 * vigil_stream_flush() returns, i.e. until the collector acknowledged every
 * event (ReBIS measured the whole run; a producer that only filled buffers
 * would otherwise look faster than it is).  S: the first start on
 * CLOCK_MONOTONIC (the driver compares it with when a collector exited).
 *
 * Builds (bench/stream/run.py):
 *   plain   clang -O2                              no events
 *   traced  vigil-cc --vigil-trace=tick -DTRACED   run with and without VIGIL_STREAM
 *   lttng   clang -O2 -DVARIANT_LTTNG -llttng-ust  two tracepoints per call
 *   persend clang -O2 -DVARIANT_PERSEND            one send() per event (persend.h)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifdef VARIANT_LTTNG
#define LTTNG_UST_TRACEPOINT_DEFINE
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#include "stream_tp.h"
#endif
#ifdef VARIANT_PERSEND
#include "persend.h"
#endif
#ifdef TRACED
#include <vigil/stream.h>
#endif

/* The traced function: an argument in, a result out, nothing else.  The
 * empty asm keeps the call (and, in the plain build, the loop) honest. */
__attribute__((noinline)) long tick(long i) {
#ifdef VARIANT_LTTNG
  lttng_ust_tracepoint(vigilstream, tick_entry, i);
#endif
#ifdef VARIANT_PERSEND
  persend_event(PERSEND_ENTRY, (uint64_t)i);
#endif
  long r = i * 3 + 1;
  __asm__ volatile("" : "+r"(r)::"memory");
#ifdef VARIANT_LTTNG
  lttng_ust_tracepoint(vigilstream, tick_return, r);
#endif
#ifdef VARIANT_PERSEND
  persend_event(PERSEND_RETURN, (uint64_t)r);
#endif
  return r;
}

static long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long)t.tv_sec * 1000000000L + t.tv_nsec;
}

struct worker {
  pthread_t tid;
  long calls, warmup;
  long t_start, t_end;
  long sum;
  pthread_barrier_t *start;
};

static void *work(void *arg) {
  struct worker *w = arg;
#ifdef VARIANT_PERSEND
  persend_thread_start(); /* connect and say hello before the clock starts */
#endif
  long s = 0;
  for (long k = 0; k < w->warmup; k++)
    s += tick(k);
#ifdef TRACED
  if (w->warmup)
    vigil_stream_flush();
#endif
  pthread_barrier_wait(w->start);
  w->t_start = now_ns();
  for (long k = 0; k < w->calls; k++)
    s += tick(k);
  w->sum = s;
#ifdef VARIANT_PERSEND
  persend_thread_end(); /* `end`, then wait until the collector acknowledged it all */
#endif
  w->t_end = now_ns();
#ifdef VARIANT_PERSEND
  persend_thread_close();
#endif
  return NULL;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000000L;
  int threads = argc > 2 ? atoi(argv[2]) : 1;
  long warmup = argc > 3 ? atol(argv[3]) : 0;
  if (n < 1 || threads < 1 || threads > 4096 || warmup < 0) {
    fprintf(stderr, "usage: %s CALLS [THREADS [WARMUP]]\n", argv[0]);
    return 2;
  }
#ifdef VARIANT_PERSEND
  persend_init();
#endif
  struct worker *w = calloc((size_t)threads, sizeof *w);
  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, (unsigned)threads + 1);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 256 << 10);
  for (int t = 0; t < threads; t++) {
    w[t].calls = n * (t + 1) / threads - n * t / threads;
    w[t].warmup = warmup;
    w[t].start = &start;
    if (pthread_create(&w[t].tid, &attr, work, &w[t]) != 0) {
      perror("pthread_create");
      return 2;
    }
  }
  pthread_barrier_wait(&start);
  long sum = 0;
  for (int t = 0; t < threads; t++) {
    pthread_join(w[t].tid, NULL);
    sum += w[t].sum;
  }
  long t0 = w[0].t_start, t1 = w[0].t_end;
  for (int t = 1; t < threads; t++) {
    if (w[t].t_start < t0)
      t0 = w[t].t_start;
    if (w[t].t_end > t1)
      t1 = w[t].t_end;
  }
#ifdef TRACED
  vigil_stream_flush(); /* every event acknowledged (returns at once when off) */
#endif
  long t2 = now_ns();
  printf("elapsed_ns %ld flush_ns %ld calls %ld threads %d events %ld start_ns %ld\n", t1 - t0,
         (t2 > t1 ? t2 : t1) - t0, n, threads, 2 * n, t0);
  fflush(stdout); /* before the stream's exit handler, which may linger */
  return sum == 42; /* keeps the sum */
}
