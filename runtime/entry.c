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

#include "internal.h"

extern _Thread_local int vg_thread_exited;
static _Thread_local int busy;
/* A global bound's lock holds its owner's tag (vigil/abi.h, "Global
 * groups inline": the thread pointer), so a thread can tell that it holds
 * it itself: a signal handler that interrupts its thread inside a critical
 * section of the bound (inline or here) must not wait for a lock its own
 * thread holds and would never release while the handler spins.  Its
 * events there are ignored, like those raised while the runtime runs; its
 * entries and exits of that bound too, which stay balanced because the
 * handler returns before the interrupted code goes on.  (Before the tag, a
 * thread-local flag ignored a handler's events of every global bound while
 * its thread held or tried any one lock; the tag ignores only what would
 * deadlock.) */
static inline uint64_t self(void) { return vigil_lock_tag(); }

static inline int mine(struct vigil_bound *b) {
  return __atomic_load_n(&b->lock, __ATOMIC_RELAXED) == self();
}

static inline void lock(struct vigil_bound *b) {
  uint64_t me = self();
  for (unsigned spins = 0;; spins++) {
    uint64_t expected = 0;
    if (__atomic_compare_exchange_n(&b->lock, &expected, me, 1, __ATOMIC_ACQUIRE,
                                    __ATOMIC_RELAXED))
      return;
    if (spins > 64)
      sched_yield();
  }
}

static inline void unlock(struct vigil_bound *b) {
  __atomic_store_n(&b->lock, 0, __ATOMIC_RELEASE);
}

#define ENTER(b, global)                                                       \
  if (busy || vg_thread_exited || ((global) && mine(b)))                       \
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
  if (global && mine(b))
    return; /* a signal handler on a thread inside this bound's lock */
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
  if (global && mine(b))
    return; /* its entry was skipped too (see `mine`) */
  if (global)
    lock(b);
  if (b->depth == 1) {
    if (b->pending && !busy && !vg_thread_exited) {
      busy = 1;
      vg_engine_settle(b);
      busy = 0;
    }
    b->pending = 0;
    /* even: outside (a group of eager instances only counts entries in gen
     * instead); atomic: a global group's inline path peeks at it unlocked */
    if (!(b->flags & VIGIL_BOUND_ENTRIES))
      __atomic_store_n(&b->gen, b->gen + 1, __ATOMIC_RELAXED);
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

/* Global groups' inline path (vigil/abi.h, "Global groups inline"): the
 * caller holds b->lock and releases it after the call.  The runtime does the whole event inside that critical section, so
 * the inline decision to call it and the runtime's step are one atomic
 * step of the automaton. */
void __vigil_event_locked(struct vigil_assertion *a, struct vigil_bound *b,
                          void *instance, uint32_t event, const uint64_t *values) {
  if (busy || vg_thread_exited)
    return;
  vg_config_init();
  busy = 1;
  vg_engine_event(a, b, instance, event, values);
  busy = 0;
}

void __vigil_site_locked(struct vigil_assertion *a, struct vigil_bound *b,
                         void *instance, const uint64_t *captures) {
  if (busy || vg_thread_exited)
    return;
  vg_config_init();
  busy = 1;
  vg_engine_site(a, b, instance, captures);
  busy = 0;
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
