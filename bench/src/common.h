/*
 * common.h — the skeleton shared by the Table 5.1 microbenchmarks
 * (bench/src/bench_[A-M].c) and by the generated sweep sources.
 *
 * One source, four variants, chosen at build time:
 *
 *   plain    clang-19 -O2 ...                 TESLA assertions vanish
 *   vigil    vigil-cc -O2 ...                 __VIGIL__ is defined, the assertion is checked
 *   hand     clang-19 -O2 -DVARIANT_HAND ...  the same check written by hand in C
 *   lttng    clang-19 -O2 -DVARIANT_LTTNG ... -llttng-ust -ldl
 *                                             one LTTng-UST tracepoint per event, bound and
 *                                             site; tracing only, no check
 *
 * and two localities:
 *
 *   (default)     global: TESLA_GLOBAL(call(examplecall), returnfrom(examplecall), ...),
 *                 one thread runs every bound; hand-written state is a plain global.
 *   -DPERTHREAD   per-thread: TESLA_WITHIN(examplecall, ...), 4 threads (argv[2]) split the
 *                 bounds; hand-written state is `static __thread`.
 *
 * The program:   prog [bounds [threads [work]]]
 *   bounds   total number of bounds (calls of examplecall), default 10 000 000
 *   threads  per-thread locality only (default 4); the global locality always uses 1
 *   work     sweeps only (-DWORK_ALU / -DWORK_MEM): work done inside every bound
 * prints one line:  elapsed_ns <ns> bounds <n> threads <t> work <w>
 * where <ns> is CLOCK_MONOTONIC wall time around the loop only (start-up, thread creation
 * and exit are excluded; per-thread: from the first thread leaving the start barrier to
 * the last thread finishing its share, as stamped by the threads themselves).
 *
 * -DBREAK makes every bound skip the event call wrapped in BREAKABLE(): vigil and
 * the hand-written check must then report a violation (run.py's self-test).
 *
 * A benchmark source is laid out as:
 *   #include "common.h"
 *   #ifdef VARIANT_HAND  state + HAND_ENTER/HAND_SITE/HAND_EXIT + HAND_<event> hooks  #endif
 *   #include "events.h"    the event functions (empty, noinline)
 *   NOINLINE void examplecall(int i) { BOUND_ENTER(i); ...; SITE_REACHED(i);
 *                                      BENCH_ASSERT(...); ...; BOUND_EXIT(i); }
 *   #include "main.h"      the skeleton main()
 */
#ifndef VIGIL_BENCH_COMMON_H
#define VIGIL_BENCH_COMMON_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <tesla.h>

#define NOINLINE __attribute__((noinline))
/* Keeps an (otherwise empty) event function and every call of it. */
#define BARRIER() __asm__ volatile("" ::: "memory")

/* ---- locality ------------------------------------------------------------ */
#ifdef PERTHREAD
#define BENCH_ASSERT(...) TESLA_WITHIN(examplecall, __VA_ARGS__)
#define HAND_STORAGE static __thread
#define DEFAULT_THREADS 4
#else
#define BENCH_ASSERT(...)                                                      \
  TESLA_GLOBAL(call(examplecall), returnfrom(examplecall), __VA_ARGS__)
#define HAND_STORAGE static
#define DEFAULT_THREADS 1
#endif

/* ---- hand-written variant -------------------------------------------------- */
#ifdef VARIANT_HAND
#define HAND_FAIL() abort()
#ifdef HAND_LOCKED
/* The hand-written check made thread-safe with one lock (issue 15's floor
 * for global assertions): every transition under one test-and-set spin
 * lock, the cheapest correct lock a C programmer writes inline (a
 * pthread_mutex_t would be a libc call per event and flatter vigil). */
static int hand_lock;
#define HAND(...)                                                              \
  do {                                                                         \
    while (__atomic_exchange_n(&hand_lock, 1, __ATOMIC_ACQUIRE))               \
      __builtin_ia32_pause();                                                  \
    __VA_ARGS__;                                                               \
    __atomic_store_n(&hand_lock, 0, __ATOMIC_RELEASE);                         \
  } while (0)
#else
#define HAND(...) __VA_ARGS__
#endif
#else
#define HAND(...) ((void)0)
#endif

/* ---- LTTng-UST variant ------------------------------------------------------- */
#ifdef VARIANT_LTTNG
#define LTTNG_UST_TRACEPOINT_DEFINE
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#include "vigil_tp.h"
#define TP(...) lttng_ust_tracepoint(vigilbench, __VA_ARGS__)
#else
#define TP(...) ((void)0)
#endif

/* -DBREAK: omit the one event call wrapped in BREAKABLE(...), chosen in each
 * benchmark so that the bound then violates its assertion (self-test). */
#ifdef BREAK
#define BREAKABLE(call_) ((void)0)
#else
#define BREAKABLE(call_) call_
#endif

/* ---- work inside the bound (sweeps, Figures 5.2 and 5.3) ------------------ */
static long work_amount; /* argv[3] */
/* The work is a separate function, 64-byte aligned, so that its loop sits at
 * the same offset from a cache-line boundary in every variant (a tiny loop's
 * speed depends on that; inlined into examplecall it would move with the
 * instrumentation). */
#if defined(WORK_ALU)
/* N additions: the sum 2 + 4 + ... + 2N.  The empty asm makes the compiler keep
 * every addition (no closed form, no vectorisation). */
static volatile long work_sink;
NOINLINE __attribute__((aligned(64))) static void bench_work(long n) {
  long s = 0;
  for (long k = 1; k <= n; k++) {
    s += 2 * k;
    __asm__ volatile("" : "+r"(s));
  }
  work_sink = s;
}
#define WORK() bench_work(work_amount)
#elif defined(WORK_MEM)
/* N stores to a 64 MiB array, streaming through it bound after bound
 * (volatile: one scalar store each, no memset, no vectorisation). */
#define WORK_WORDS (16u << 20) /* 16 Mi ints = 64 MiB */
static volatile int *work_array;
static unsigned long work_pos;
NOINLINE __attribute__((aligned(64))) static void bench_work(long n) {
  unsigned long p = work_pos;
  volatile int *a = work_array;
  for (long k = 0; k < n; k++)
    a[(p + (unsigned long)k) & (WORK_WORDS - 1)] = (int)k;
  work_pos = p + (unsigned long)n;
}
#define WORK() bench_work(work_amount)
#else
#define WORK() ((void)0)
#endif

/* ---- bound entry, site and exit hooks ------------------------------------ *
 * HAND_ENTER() / HAND_SITE(i) / HAND_EXIT() are defined by each benchmark
 * (under VARIANT_HAND; HAND(...) drops its argument otherwise).  TP(...)
 * records the bound and the site too, so that a trace holds everything an
 * offline checker would need. */
#define BOUND_ENTER(i)                                                         \
  do {                                                                         \
    TP(bound_enter, (i));                                                      \
    HAND(HAND_ENTER());                                                        \
  } while (0)
#define SITE_REACHED(i)                                                        \
  do {                                                                         \
    TP(site, (i));                                                             \
    HAND(HAND_SITE(i));                                                        \
  } while (0)
#define BOUND_EXIT(i)                                                          \
  do {                                                                         \
    HAND(HAND_EXIT());                                                         \
    TP(bound_exit, (i));                                                       \
  } while (0)

#endif /* VIGIL_BENCH_COMMON_H */
