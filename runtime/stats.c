/*
 * stats.c — per-assertion bookkeeping: a registry of the assertions that
 * have run (lock-free push), totals flushed once per bound, and the
 * VIGIL_STATS / count-mode summary printed at exit.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"
#include "vigil/fastpath.h"

/* header.fast[] on touch: 1 where the alternative may be in a fast state:
 * the pass inlined it, or the runtime takes its plain steps itself
 * (shortcut.c).  The pass decides with the same function
 * (vigil/fastpath.h). */
static void fast_init(struct vigil_assertion *a, struct vg_assertion_rt *rt) {
  uint8_t *out = rt->fast_init;
  uint64_t statics = 0;
  for (unsigned s = 0; s < a->nsymbols; s++)
    if (a->symbols[s].flags & VIGIL_EF_STATIC)
      statics |= 1ull << s;
  for (unsigned i = 0; i < a->nalternatives && i < 8; i++) {
    struct vigil_fast_model m = {&a->alternatives[i], statics, a->nsymbols, a->mode};
    out[i] = (uint8_t)((a->fast || vg_config.shortcuts) && a->kind == VIGIL_KIND_INLINE &&
                       vigil_fast_eligible(&m));
  }
  rt->static_symbols = statics;
  uint8_t any = 0;
  for (unsigned i = 0; i < 8; i++)
    any |= out[i];
  /* the runtime's own table steps need their tables; without memory for
   * them the generic engine does everything (the pass's inline path, if
   * any, still works: it reads header.fast, which reclaim() takes over) */
  if (any && vg_config.shortcuts && vg_shortcut_prepare(a, rt) == 0)
    rt->any_fast = 1;
}

uint64_t __vigil_test_dropped(struct vigil_assertion *a);

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
  fast_init(a, n);
  struct vg_assertion_rt *expected = NULL;
  if (!__atomic_compare_exchange_n((struct vg_assertion_rt **)&a->runtime, &expected, n,
                                   0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    free(n->tables);
    free(n);
    return expected;
  }
  struct vg_assertion_rt *head = atomic_load(&registry);
  do
    n->next = head;
  while (!atomic_compare_exchange_weak(&registry, &head, n));
  return n;
}

/* Instances whose counters live in their own header: every global
 * instance, and the per-thread instances of threads still running. */
struct vg_live {
  struct vg_header *h;
  struct vg_assertion_rt *rt;
  const struct vigil_bound *eager; /* eager instances: their group */
  struct vg_live *next, *prev, *thread_next;
};
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static struct vg_live *live;
static pthread_key_t exit_key;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;
static _Thread_local struct vg_live *mine;

static void at_thread_exit(void *p) {
  (void)p;
  vg_stats_thread_exit();
}
static void make_exit_key(void) { pthread_key_create(&exit_key, at_thread_exit); }

void vg_stats_register(struct vigil_assertion *a, struct vg_header *h, int global,
                       const struct vigil_bound *eager) {
  struct vg_assertion_rt *rt = vg_rt(a);
  struct vg_live *n = calloc(1, sizeof *n);
  if (!rt || !n) {
    free(n);
    return; /* counted nowhere; the verification itself is unaffected */
  }
  n->h = h;
  n->rt = rt;
  n->eager = eager;
  pthread_mutex_lock(&live_lock);
  n->next = live;
  if (live)
    live->prev = n;
  live = n;
  pthread_mutex_unlock(&live_lock);
  if (!global) {
    n->thread_next = mine;
    mine = n;
    pthread_once(&exit_once, make_exit_key);
    pthread_setspecific(exit_key, (void *)1);
  }
}

static uint64_t load64(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
static uint32_t load32(const uint32_t *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }

/* Bounds in which the instance existed.  An eager instance is initialised
 * in every bound of its group on its thread, so they are the group's
 * outermost entries: gen is bumped by each entry and each exit (odd
 * inside), and nothing on the inline path has to count them. */
static uint64_t instances_of(const struct vg_live *n) {
  if (n->eager && (n->eager->flags & VIGIL_BOUND_ENTRIES))
    return load64(&n->eager->gen) + 1; /* from ~0, one per entry */
  if (n->eager)
    return (load64(&n->eager->gen) + 1) / 2;
  return load64(&n->h->bounds);
}

void vg_stats_thread_exit(void) {
  pthread_mutex_lock(&live_lock);
  for (struct vg_live *n = mine, *next; n; n = next) {
    next = n->thread_next;
    atomic_fetch_add(&n->rt->instances, instances_of(n));
    atomic_fetch_add(&n->rt->passes, n->h->passes);
    atomic_fetch_add(&n->rt->events, n->h->events);
    if (n->prev)
      n->prev->next = n->next;
    else
      live = n->next;
    if (n->next)
      n->next->prev = n->prev;
    free(n);
  }
  mine = NULL;
  pthread_mutex_unlock(&live_lock);
}

void vg_stats_dropped(struct vigil_assertion *a) {
  struct vg_assertion_rt *rt = vg_rt(a);
  if (rt)
    atomic_fetch_add_explicit(&rt->dropped, 1, memory_order_relaxed);
}

static atomic_uint_fast64_t abandoned_bounds;

void vg_stats_abandoned(void) {
  atomic_fetch_add_explicit(&abandoned_bounds, 1, memory_order_relaxed);
}

void vg_stats_flush_bound(struct vigil_assertion *a, struct vg_header *h) {
  if (h->dropped)
    vg_stats_dropped(a); /* an unknowable verdict: said, never guessed */
}

/* One assertion's totals: exited threads plus live instances. */
static void sum(struct vg_assertion_rt *rt, struct vigil_totals *t) {
  t->instances += atomic_load(&rt->instances);
  t->events += atomic_load(&rt->events);
  t->passes += atomic_load(&rt->passes);
  t->failures += atomic_load(&rt->failures);
  t->dropped += atomic_load(&rt->dropped);
  for (struct vg_live *n = live; n; n = n->next)
    if (n->rt == rt) {
      t->instances += instances_of(n);
      t->passes += load64(&n->h->passes);
      t->events += load32(&n->h->events);
    }
}

void vigil_get_totals(struct vigil_totals *out) {
  struct vigil_totals t = {0};
  pthread_mutex_lock(&live_lock);
  for (struct vg_assertion_rt *rt = atomic_load(&registry); rt; rt = rt->next) {
    t.assertions++;
    sum(rt, &t);
  }
  pthread_mutex_unlock(&live_lock);
  vg_monitor_totals(&t);
  t.abandoned = atomic_load(&abandoned_bounds);
  *out = t;
}

void vg_stats_at_exit(void) {
  int count_mode = vg_config.on_failure == VG_COUNT;
  if (!vg_config.stats && !count_mode)
    return;
  struct vigil_totals t;
  vigil_get_totals(&t);
  if (vg_config.stats && (t.assertions || !t.monitors)) {
    fprintf(stderr, "vigil: statistics (%llu assertions)\n",
            (unsigned long long)t.assertions);
    fprintf(stderr, "  %-32s %10s %12s %10s %10s %8s\n", "assertion", "instances",
            "slow-events", "passes", "failures", "dropped");
    pthread_mutex_lock(&live_lock);
    for (struct vg_assertion_rt *rt = atomic_load(&registry); rt; rt = rt->next) {
      struct vigil_totals one = {0};
      sum(rt, &one);
      fprintf(stderr, "  %-32s %10llu %12llu %10llu %10llu %8llu\n",
              rt->assertion->location, (unsigned long long)one.instances,
              (unsigned long long)one.events, (unsigned long long)one.passes,
              (unsigned long long)one.failures, (unsigned long long)one.dropped);
    }
    pthread_mutex_unlock(&live_lock);
  }
  if (vg_config.stats && t.abandoned)
    fprintf(stderr,
            "vigil: %llu bound%s abandoned (left without the exit, as by a "
            "longjmp); their open instances are counted in dropped\n",
            (unsigned long long)t.abandoned, t.abandoned == 1 ? "" : "s");
  if (vg_config.stats)
    vg_monitor_print_stats(0);
  if (count_mode) {
    fprintf(stderr, "vigil: %llu violation%s counted\n",
            (unsigned long long)t.failures, t.failures == 1 ? "" : "s");
    for (struct vg_assertion_rt *rt = atomic_load(&registry); rt; rt = rt->next)
      if (atomic_load(&rt->failures))
        fprintf(stderr, "  %s: %llu\n", rt->assertion->location,
                (unsigned long long)atomic_load(&rt->failures));
    vg_monitor_print_stats(1);
  }
}

/* For the runtime's unit tests: instances of `a` dropped so far (the
 * verdict was unknowable: store or candidate limits, memory). */
uint64_t __vigil_test_dropped(struct vigil_assertion *a) {
  struct vg_assertion_rt *rt = a->runtime;
  return rt ? atomic_load(&rt->dropped) : 0;
}
