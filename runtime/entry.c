/*
 * entry.c — the functions instrumented code calls (vigil/abi.h).
 *
 * Per-thread assertions get thread_local instances and bounds from the pass;
 * their common transitions are inlined (vigil/fastpath.h) and only the rest
 * arrives here, without a lock.  Global assertions share one instance per
 * assertion and one bound per group, serialised by a spin lock in the bound:
 * TESLA promised synchronised global automata and crashed; ThinTESLA dropped
 * the promise; vigil keeps it.  A thread-local guard ignores events raised
 * from inside the runtime (a custom handler calling instrumented code).
 */
#include <sched.h>
#include <signal.h>

#include "internal.h"

extern _Thread_local int vg_thread_exited;
static _Thread_local int busy;
/* Set from before this thread tries a global bound's lock until it has
 * released it: a signal handler that interrupts it there must not try a
 * lock (its own thread may hold it, and would never release it while the
 * handler spins).  Its events are ignored, like those raised while the
 * runtime runs; its bound entries and exits too, which stay balanced
 * because the handler returns before the interrupted code goes on. */
static _Thread_local volatile sig_atomic_t holding;

static inline void lock(struct vigil_bound *b) {
  holding = 1;
  for (unsigned spins = 0;; spins++) {
    unsigned expected = 0;
    if (__atomic_compare_exchange_n(&b->lock, &expected, 1, 1, __ATOMIC_ACQUIRE,
                                    __ATOMIC_RELAXED))
      return;
    if (spins > 64)
      sched_yield();
  }
}

static inline void unlock(struct vigil_bound *b) {
  __atomic_store_n(&b->lock, 0, __ATOMIC_RELEASE);
  holding = 0;
}

#define ENTER(b, global)                                                       \
  if (busy || holding || vg_thread_exited)                                     \
    return;                                                                    \
  busy = 1;                                                                    \
  if (global)                                                                  \
    lock(b)

#define LEAVE(b, global)                                                       \
  if (global)                                                                  \
    unlock(b);                                                                 \
  busy = 0

void __vigil_bound_enter(struct vigil_bound *b, int global, void *const *frame) {
  /* not guarded by `busy`: entries and exits must stay balanced */
  if (global && holding)
    return; /* a signal handler on a thread inside a global bound's lock */
  if (global)
    lock(b);
  /* An abandoned bound (abandon.c) is closed only where nothing else can be
   * working on it: per-thread (a global bound's depth counts threads, so
   * one thread's frame says nothing), and not from inside the runtime (a
   * handler), which may be in the middle of one of its instances. */
  vg_engine_bound_enter(b, global || busy || vg_thread_exited ? NULL : frame);
  if (global)
    unlock(b);
}

void __vigil_bound_exit(struct vigil_bound *b, int global) {
  if (global && holding)
    return; /* its entry was skipped too (see `holding`) */
  if (global)
    lock(b);
  if (b->depth == 1) {
    if (b->pending && !busy && !vg_thread_exited) {
      busy = 1;
      vg_engine_settle(b);
      busy = 0;
    }
    b->pending = 0;
    if (!(b->flags & VIGIL_BOUND_ENTRIES)) /* there gen counts entries */
      b->gen++; /* even: outside */
  }
  if (b->depth > 0) /* atomic: the entry points peek at it without the lock */
    __atomic_store_n(&b->depth, b->depth - 1, __ATOMIC_RELAXED);
  if (global)
    unlock(b);
}

void __vigil_bound_settle(struct vigil_bound *b) {
  if (busy || vg_thread_exited) {
    b->pending = 0; /* nothing may be checked now; do not ask again */
    return;
  }
  busy = 1;
  vg_engine_settle(b);
  LEAVE(b, 0);
}

/* Eager instances (eager.c): per-thread only, so no lock. */
void __vigil_bound_settle_eager(struct vigil_bound *b, uint32_t n,
                                struct vigil_assertion *const *as,
                                void *const *insts) {
  if (busy || vg_thread_exited) {
    b->pending = 0; /* as __vigil_bound_settle */
    return;
  }
  busy = 1;
  vg_engine_settle_eager(b, n, as, insts);
  busy = 0;
}

void __vigil_bound_enter_eager(struct vigil_bound *b, void *const *frame,
                               uint32_t n, struct vigil_assertion *const *as,
                               void *const *insts) {
  /* not guarded by `busy` (entries and exits stay balanced); from inside
   * the runtime only a nesting, as __vigil_bound_enter */
  int inside = busy || vg_thread_exited;
  busy = 1;
  vg_engine_enter_eager(b, inside ? NULL : frame, n, as, insts);
  busy = inside;
}

static int is_global(const struct vigil_assertion *a) {
  return a->locality == VIGIL_GLOBAL;
}

void __vigil_site_reached(struct vigil_assertion *a, struct vigil_bound *b,
                          void *instance, const uint64_t *captures) {
  if (__atomic_load_n(&b->depth, __ATOMIC_RELAXED) == 0)
    return;
  vg_config_init();
  int global = is_global(a);
  ENTER(b, global);
  vg_engine_site(a, b, instance, captures);
  LEAVE(b, global);
}

void __vigil_event(struct vigil_assertion *a, struct vigil_bound *b,
                   void *instance, uint32_t event, const uint64_t *values) {
  /* outside every bound: the common case, decided without the lock */
  if (__atomic_load_n(&b->depth, __ATOMIC_RELAXED) == 0)
    return;
  vg_config_init();
  int global = is_global(a);
  ENTER(b, global);
  vg_engine_event(a, b, instance, event, values);
  LEAVE(b, global);
}

/* Struct automata: objects.c keeps the instances (and locks global ones). */
void __vigil_object_event(struct vigil_assertion *a, uint32_t symbol,
                          const uint64_t *values) {
  if (busy || vg_thread_exited)
    return;
  vg_config_init();
  busy = 1;
  vg_objects_event(a, symbol, values);
  busy = 0;
}
