/*
 * program.h — a hand-built atomic-region program for the runtime tests:
 * what the pass would emit for
 *
 *   int x;                          // t.c:3
 *   void reader(void)  { ... = x;  // AR 0 first: t.c:10:5 (read)
 *                        ... = x;  // end 0: t.c:12:5 (read)
 *                        x = ...;  // end 1: t.c:13:5 (write) }
 *   void writer(void)  { x = ...;  // AR 1 first: t.c:20:5 (write)
 *                        ... = x;  // end 2: t.c:22:5 (read)
 *                        x = ...;  // end 3: t.c:23:5 (write) }
 *   void other(void)   { y ...     // AR 2 on y: t.c:40:5 (read), end 4 (write) t.c:41:5 }
 *   remote accesses (checked):  site 0 read t.c:30:3, site 1 write t.c:31:3,
 *                               site 2 read-modify-write t.c:32:3, site 3 write of y t.c:42:3
 *
 * Every AR watches both kinds, so that serializable interleavings are
 * recorded too and the runtime's classification is what decides.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vigil/atomic.h"

#define RW (VIGIL_AR_READ | VIGIL_AR_WRITE)

static const struct vigil_atomic_var vars[] = {
    {"x", {"t.c", 3, 5}},
    {"y", {"t.c", 4, 5}},
};
static const struct vigil_ar ars[] = {
    {0, 0, "reader", {"t.c", 10, 5}, VIGIL_AR_READ, RW, RW, 4, 0},
    {0, 1, "writer", {"t.c", 20, 5}, VIGIL_AR_WRITE, RW, RW, 4, 0},
    {1, 2, "other", {"t.c", 40, 5}, VIGIL_AR_READ, VIGIL_AR_WRITE, RW, 4, 0},
};
static const struct vigil_ar_end ends[] = {
    {0, VIGIL_AR_READ, 4, 0, {"t.c", 12, 5}},
    {0, VIGIL_AR_WRITE, 4, 0, {"t.c", 13, 5}},
    {1, VIGIL_AR_READ, 4, 0, {"t.c", 22, 5}},
    {1, VIGIL_AR_WRITE, 4, 0, {"t.c", 23, 5}},
    {2, VIGIL_AR_WRITE, 4, 0, {"t.c", 41, 5}},
};
static const struct vigil_access_site sites[] = {
    {0, VIGIL_AR_READ, 4, 0, {"t.c", 30, 3}},
    {0, VIGIL_AR_WRITE, 4, 0, {"t.c", 31, 3}},
    {0, RW, 4, 0, {"t.c", 32, 3}},
    {1, VIGIL_AR_WRITE, 4, 0, {"t.c", 42, 3}},
};
static const struct vigil_atomic_program program = {
    VIGIL_ATOMIC_ABI, VIGIL_ATOMIC_CHECKS, 2, 3, 5, 4, vars, ars, ends, sites};

enum { AR_READER = 0, AR_WRITER = 1, AR_OTHER = 2 };
enum { END_R_R = 0, END_R_W = 1, END_W_R = 2, END_W_W = 3, END_OTHER = 4 };
enum { SITE_READ = 0, SITE_WRITE = 1, SITE_RMW = 2, SITE_Y_WRITE = 3 };

int x, y;

/* what the pass's constructor does */
__attribute__((constructor)) static void register_program(void) {
  setvbuf(stdout, NULL, _IONBF, 0); /* in order with the reports on stderr */
  __vigil_atomic_register(&program);
}

/* The remote access of a check: as instrumented code does it. */
static inline void checked_access(void *addr, uint32_t site) {
  if (__vigil_atomic_filter[VIGIL_ATOMIC_BUCKET(addr)] & VIGIL_ATOMIC_FILTER_COUNT)
    __vigil_access(addr, site);
}

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

/* Runs fn(arg) on a new thread named `name` and joins it. */
struct named {
  const char *name;
  void *(*fn)(void *);
  void *arg;
};
static inline void *run_named(void *p) {
  struct named *n = p;
  pthread_setname_np(pthread_self(), n->name);
  return n->fn(n->arg);
}
static inline void on_thread(const char *name, void *(*fn)(void *), void *arg) {
  pthread_t t;
  struct named n = {name, fn, arg};
  pthread_create(&t, NULL, run_named, &n);
  pthread_join(t, NULL);
}

/* The runtime's slot table (atomic_internal.h): tests wait until a remote
 * thread really sleeps on an AR, rather than sleeping and hoping. */
#include "atomic_internal.h"

static inline unsigned sleepers(void) {
  unsigned n = 0;
  for (unsigned i = 0; i < VG_AR_SLOTS; i++)
    n += atomic_load(&vg_ar_slots[i].waiters);
  return n;
}

/* Waits (at most 20 s) until `sleepers() == n`; 0 on success. */
static inline int await_sleepers(unsigned n) {
  for (int i = 0; i < 20000; i++) {
    if (sleepers() == n)
      return 0;
    sleep_ms(1);
  }
  fprintf(stderr, "test: gave up waiting for %u sleeping remote(s)\n", n);
  return -1;
}

/* Slots still in use and filter buckets still set (a leak if nothing runs). */
static inline unsigned busy_slots(void) {
  unsigned n = 0;
  for (unsigned i = 0; i < VG_AR_SLOTS; i++)
    n += atomic_load(&vg_ar_slots[i].state) != VG_SLOT_FREE;
  return n;
}
static inline unsigned busy_buckets(void) {
  unsigned n = 0;
  for (unsigned i = 0; i < VIGIL_ATOMIC_FILTER_SIZE; i++)
    n += (__vigil_atomic_filter[i] & VIGIL_ATOMIC_FILTER_COUNT) != 0;
  return n;
}
