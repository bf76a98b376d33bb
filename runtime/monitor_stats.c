/*
 * monitor_stats.c — the monitors' counters: events per thread (summed from
 * the live TLS slots) and per monitor, for vigil_get_totals and
 * VIGIL_STATS.
 */
#include <stdio.h>

#include "monitor_internal.h"

static void sum(struct vg_monitor_rt *rt, uint64_t *events, uint64_t *failures, uint64_t *dropped) {
  *events += atomic_load(&rt->events);
  *failures += atomic_load(&rt->failures);
  *dropped += atomic_load(&rt->dropped);
  for (struct reg *r = vg_monitor_live; r; r = r->next)
    if (r->rt == rt)
      *events += ld64(&r->tls->events);
}

void vg_monitor_totals(struct vigil_totals *t) {
  spin_lock(&vg_monitor_live_lock);
  for (struct vg_monitor_rt *rt = atomic_load(&vg_monitors); rt; rt = rt->next) {
    uint64_t ev = 0, fail = 0, drop = 0;
    sum(rt, &ev, &fail, &drop);
    t->monitors++;
    t->monitor_events += ev;
    t->monitor_failures += fail;
    t->events += ev;
    t->failures += fail;
    t->dropped += drop;
  }
  spin_unlock(&vg_monitor_live_lock);
}

void vg_monitor_print_stats(int count_mode) {
  struct vg_monitor_rt *head = atomic_load(&vg_monitors);
  if (!head)
    return;
  spin_lock(&vg_monitor_live_lock);
  if (!count_mode)
    fprintf(stderr, "vigil: monitors\n  %-32s %12s %10s %8s\n", "monitor", "events",
            "violations", "dropped");
  for (struct vg_monitor_rt *rt = head; rt; rt = rt->next) {
    uint64_t ev = 0, fail = 0, drop = 0;
    sum(rt, &ev, &fail, &drop);
    char name[256];
    snprintf(name, sizeof name, "%s (%s)", rt->m->name, vg_monitor_basename(rt->m->binding));
    if (!count_mode)
      fprintf(stderr, "  %-32s %12llu %10llu %8llu\n", name, (unsigned long long)ev,
              (unsigned long long)fail, (unsigned long long)drop);
    else if (fail)
      fprintf(stderr, "  monitor %s: %llu\n", name, (unsigned long long)fail);
  }
  spin_unlock(&vg_monitor_live_lock);
}
