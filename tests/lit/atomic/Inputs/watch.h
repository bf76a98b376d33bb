/*
 * watch.h — a hand-built atomic-region program WITHOUT access checks
 * (flags 0), so the core picks the hardware-watchpoint detector
 * (runtime/atomic_watch*.c) by itself; the tests call the hooks the pass
 * would emit and make remote accesses with plain loads and stores, which
 * only a watchpoint can see.
 *
 *   int x;      AR 0 "reader": read at w.c:10:5, ends: read (0) w.c:12:5, write (1) w.c:13:5
 *               AR 1 "writer": write at w.c:20:5, ends: read (2) w.c:22:5, write (3) w.c:23:5
 *   long v[8];  AR 2 "slots": read at w.c:30:5, end: write (4) w.c:31:5
 * Every AR watches both kinds.  The program is registered by the test
 * (watch_register()), so a test can install a SIGTRAP handler first.
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vigil/atomic.h"
#include "atomic_internal.h"

#define RW (VIGIL_AR_READ | VIGIL_AR_WRITE)

static const struct vigil_atomic_var vars[] = {{"x", {"w.c", 3, 5}}, {"v", {"w.c", 4, 6}}};
static const struct vigil_ar ars[] = {
    {0, 0, "reader", {"w.c", 10, 5}, VIGIL_AR_READ, RW, RW, 4, 0},
    {0, 1, "writer", {"w.c", 20, 5}, VIGIL_AR_WRITE, RW, RW, 4, 0},
    {1, 2, "slots", {"w.c", 30, 5}, VIGIL_AR_READ, VIGIL_AR_WRITE, RW, 8, 0},
};
static const struct vigil_ar_end ends[] = {
    {0, VIGIL_AR_READ, 4, 0, {"w.c", 12, 5}},  {0, VIGIL_AR_WRITE, 4, 0, {"w.c", 13, 5}},
    {1, VIGIL_AR_READ, 4, 0, {"w.c", 22, 5}},  {1, VIGIL_AR_WRITE, 4, 0, {"w.c", 23, 5}},
    {2, VIGIL_AR_WRITE, 8, 0, {"w.c", 31, 5}},
};
static const struct vigil_atomic_program program = {
    VIGIL_ATOMIC_ABI, 0, 2, 3, 5, 0, vars, ars, ends, NULL};

enum { AR_READER = 0, AR_WRITER = 1, AR_SLOTS = 2 };
enum { END_R_R = 0, END_R_W = 1, END_W_R = 2, END_W_W = 3, END_SLOTS = 4 };

int x;
long v[8];

static inline void watch_register(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  __vigil_atomic_register(&program);
}

/* Remote accesses as compiled code makes them: one instruction each, not
 * inlined, so the trap's PC is in a function dladdr knows (-rdynamic). */
__attribute__((noinline)) void store_x(int val) { *(volatile int *)&x = val; }
__attribute__((noinline)) int load_x(void) { return *(volatile int *)&x; }
__attribute__((noinline)) void add_x(int d) { __asm__ volatile("addl %1, %0" : "+m"(x) : "r"(d)); }
__attribute__((noinline)) int xchg_x(int val) { return __atomic_exchange_n(&x, val, __ATOMIC_SEQ_CST); }

static inline double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
static inline void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts))
    ;
}
static inline unsigned sleepers(void) {
  unsigned n = 0;
  for (unsigned i = 0; i < VG_AR_SLOTS; i++)
    n += atomic_load(&vg_ar_slots[i].waiters);
  return n;
}
/* Waits (at most 20 s) until `sleepers() == n`: a remote really is held. */
static inline int await_sleepers(unsigned n) {
  for (int i = 0; i < 20000; i++) {
    if (sleepers() == n)
      return 0;
    sleep_ms(1);
  }
  fprintf(stderr, "test: gave up waiting for %u sleeping remote(s)\n", n);
  return -1;
}
