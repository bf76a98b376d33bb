/*
 * entry.c — the four functions instrumented code calls (vigil/abi.h).
 *
 * Per-thread assertions get a thread_local instance from the pass, so the
 * common path takes no lock and shares no cache line.  Global assertions
 * share one instance, serialised by a spin lock in its header: TESLA
 * promised synchronised global automata and crashed; ThinTESLA dropped the
 * promise; vigil keeps it.  A thread-local guard ignores events raised from
 * inside the runtime (a custom handler calling instrumented code).
 */
#include <sched.h>

#include "internal.h"

extern _Thread_local int vg_thread_exited;
static _Thread_local int busy;

static inline void lock(struct vg_header *h) {
  for (unsigned spins = 0;; spins++) {
    unsigned expected = 0;
    if (atomic_compare_exchange_weak_explicit(&h->lock, &expected, 1,
                                              memory_order_acquire,
                                              memory_order_relaxed))
      return;
    if (spins > 64)
      sched_yield();
  }
}

static inline void unlock(struct vg_header *h) {
  atomic_store_explicit(&h->lock, 0, memory_order_release);
}

#define ENTER(a, instance)                                                     \
  struct vg_header *h = (instance);                                           \
  if (busy || vg_thread_exited)                                                \
    return;                                                                    \
  busy = 1;                                                                    \
  int global = (a)->locality == VIGIL_GLOBAL;                                  \
  if (global)                                                                  \
    lock(h)

#define LEAVE()                                                                \
  if (global)                                                                  \
    unlock(h);                                                                 \
  busy = 0

void __vigil_bound_start(struct vigil_assertion *a, void *instance) {
  vg_config_init();
  ENTER(a, instance);
  vg_engine_bound_start(a, instance);
  LEAVE();
}

void __vigil_bound_end(struct vigil_assertion *a, void *instance) {
  ENTER(a, instance);
  vg_engine_bound_end(a, instance);
  LEAVE();
}

void __vigil_site_reached(struct vigil_assertion *a, void *instance,
                          const uint64_t *captures) {
  ENTER(a, instance);
  vg_engine_site(a, instance, captures);
  LEAVE();
}

void __vigil_event(struct vigil_assertion *a, void *instance, uint32_t event,
                   const uint64_t *values) {
  /* outside every bound: the common case, decided without the lock */
  if (__atomic_load_n(&((struct vg_header *)instance)->depth, __ATOMIC_RELAXED) == 0)
    return;
  ENTER(a, instance);
  vg_engine_event(a, instance, event >> 8, event & 0xffu, values);
  LEAVE();
}
