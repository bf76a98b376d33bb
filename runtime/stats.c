/*
 * stats.c — per-assertion bookkeeping: a registry of the assertions that
 * have run (lock-free push), totals flushed once per bound, and the
 * VIGIL_STATS / count-mode summary printed at exit.
 */
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

static _Atomic(struct vg_assertion_rt *) registry;

struct vg_assertion_rt *vg_rt(struct vigil_assertion *a) {
  struct vg_assertion_rt *rt = __atomic_load_n((struct vg_assertion_rt **)&a->runtime,
                                               __ATOMIC_ACQUIRE);
  if (rt)
    return rt;
  struct vg_assertion_rt *n = calloc(1, sizeof *n);
  if (!n)
    return NULL;
  n->assertion = a;
  struct vg_assertion_rt *expected = NULL;
  if (!__atomic_compare_exchange_n((struct vg_assertion_rt **)&a->runtime, &expected, n,
                                   0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    free(n);
    return expected;
  }
  struct vg_assertion_rt *head = atomic_load(&registry);
  do
    n->next = head;
  while (!atomic_compare_exchange_weak(&registry, &head, n));
  return n;
}

void vg_stats_flush_bound(struct vigil_assertion *a, struct vg_header *h,
                          int passed) {
  struct vg_assertion_rt *rt = vg_rt(a);
  if (!rt)
    return;
  atomic_fetch_add_explicit(&rt->instances, 1, memory_order_relaxed);
  if (h->events)
    atomic_fetch_add_explicit(&rt->events, h->events, memory_order_relaxed);
  if (passed)
    atomic_fetch_add_explicit(&rt->passes, 1, memory_order_relaxed);
  if (h->dropped)
    atomic_fetch_add_explicit(&rt->dropped, 1, memory_order_relaxed);
  h->events = 0;
}

void vigil_get_totals(struct vigil_totals *out) {
  struct vigil_totals t = {0};
  for (struct vg_assertion_rt *rt = atomic_load(&registry); rt; rt = rt->next) {
    t.assertions++;
    t.instances += atomic_load(&rt->instances);
    t.events += atomic_load(&rt->events);
    t.passes += atomic_load(&rt->passes);
    t.failures += atomic_load(&rt->failures);
    t.dropped += atomic_load(&rt->dropped);
  }
  *out = t;
}

void vg_stats_at_exit(void) {
  int count_mode = vg_config.on_failure == VG_COUNT;
  if (!vg_config.stats && !count_mode)
    return;
  struct vigil_totals t;
  vigil_get_totals(&t);
  if (vg_config.stats) {
    fprintf(stderr, "vigil: statistics (%llu assertions)\n",
            (unsigned long long)t.assertions);
    fprintf(stderr, "  %-32s %10s %12s %10s %10s %8s\n", "assertion", "instances",
            "events", "passes", "failures", "dropped");
    for (struct vg_assertion_rt *rt = atomic_load(&registry); rt; rt = rt->next)
      fprintf(stderr, "  %-32s %10llu %12llu %10llu %10llu %8llu\n",
              rt->assertion->location,
              (unsigned long long)atomic_load(&rt->instances),
              (unsigned long long)atomic_load(&rt->events),
              (unsigned long long)atomic_load(&rt->passes),
              (unsigned long long)atomic_load(&rt->failures),
              (unsigned long long)atomic_load(&rt->dropped));
  }
  if (count_mode) {
    fprintf(stderr, "vigil: %llu violation%s counted\n",
            (unsigned long long)t.failures, t.failures == 1 ? "" : "s");
    for (struct vg_assertion_rt *rt = atomic_load(&registry); rt; rt = rt->next)
      if (atomic_load(&rt->failures))
        fprintf(stderr, "  %s: %llu\n", rt->assertion->location,
                (unsigned long long)atomic_load(&rt->failures));
  }
}
