/*
 * monitor_hybrid.c — hybrid automata in process (clocks, guards on clocks
 * and event fields, resets, state invariants: docs/models.md, "Hybrid
 * automata"): the event path, the clock, the expiry scan and the
 * test-only manual clock.  The timer thread that runs the scan when time
 * passes with no event is monitor_timer.c.  Plain models never come here:
 * their hooks call __vigil_monitor_event (monitor.c), whose code and cost
 * are what they were before clocks.
 *
 * Where the instances live.  Each is a whole struct vk_inst (state word,
 * the clocks' last resets, the invariant's expiry) and every one of them,
 * whatever the scope, is in the monitor's striped table (monitor_table.c):
 * per object by its key, per thread by the thread id, global under key 0.
 * An invariant must fire while its thread is blocked or busy elsewhere, so
 * a timer thread must read and reset instances that belong to other
 * threads.  A plain per-thread instance lives in the thread's TLS slot,
 * touched with no lock by its thread alone, and freed with the thread;
 * the timer cannot read it safely.  A registered per-thread slot with a
 * lock of its own would work, but it would be a second kind of storage
 * for the timer to scan, with its own locking and its own exit protocol.
 * Keying the table by thread id gives the timer one structure to scan
 * under the stripe locks every event already takes, at the price of a
 * hash and an uncontended lock per event (a few ns, next to the clock
 * read every hybrid event pays anyway).  A thread id is reused after the
 * thread exits, so the thread's exit removes its instance (monitor.c's
 * thread destructor calls vg_monitor_hybrid_thread_exit).
 *
 * The clock is CLOCK_MONOTONIC, in nanoseconds: it never jumps when the
 * wall clock is set, the kernel's hybrid monitors count on the same clock
 * (ktime_get_ns), and the timer thread sleeps on it (an absolute futex
 * timeout), so an expiry computed from an event's time and the timer's
 * wake-up agree.  clock_gettime(CLOCK_MONOTONIC) runs in the vDSO, no
 * system call: about 20 ns on bare metal, 45 ns on the test VM, most of a
 * hybrid event's extra cost (docs/performance.md).  The COARSE clock is
 * cheaper but ticks every 1-10 ms, too coarse for guards in microseconds;
 * the TSC alone would need a calibration to nanoseconds per machine.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "monitor_internal.h"

/* ---- the clock ------------------------------------------------------------------------ */

enum { CLOCK_UNKNOWN = 0, CLOCK_REAL = 1, CLOCK_MANUAL = 2 };
static int clock_mode;
static uint64_t manual_now;

static __attribute__((noinline, cold)) int read_clock_mode(void) {
  const char *c = getenv("VIGIL_MONITOR_CLOCK");
  int mode = c && !strcmp(c, "manual") ? CLOCK_MANUAL : CLOCK_REAL;
  __atomic_store_n(&clock_mode, mode, __ATOMIC_RELAXED);
  return mode;
}

int vg_monitor_manual_clock(void) {
  int mode = __atomic_load_n(&clock_mode, __ATOMIC_RELAXED);
  if (__builtin_expect(mode == CLOCK_UNKNOWN, 0))
    mode = read_clock_mode();
  return mode == CLOCK_MANUAL;
}

uint64_t vg_monitor_now(void) {
  if (__builtin_expect(vg_monitor_manual_clock(), 0))
    return __atomic_load_n(&manual_now, __ATOMIC_ACQUIRE);
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- reports -------------------------------------------------------------------------- */

static __attribute__((noinline, cold)) void report_step(struct vg_monitor_rt *rt, uint32_t rule,
                                                        uint64_t key, struct vk_result v,
                                                        uint64_t expiry) {
  struct vigil_monitor *m = rt->m;
  struct violation x = {.rule = &m->rules[rule], .state = v.from, .key = key,
                        .has_key = m->scope != VIGIL_MONITOR_GLOBAL, .guard = v.guard,
                        .at = expiry};
  switch (v.verdict) {
  case VK_V_GUARD: x.reason = R_GUARD; break;
  case VK_V_INVARIANT: x.reason = R_INVARIANT; break;
  case VK_V_NOT_FINAL: x.reason = R_NOT_FINAL; break;
  case VK_V_LTL: x.reason = R_LTL, x.state = v.states; break;
  default: x.reason = R_INVALID;
  }
  vg_monitor_report(rt, &x);
}

/* ---- the event path ----------------------------------------------------------------------- */

/*
 * LTL models take this path too: an instance is the set of Büchi states,
 * the atoms' values and which are known (vk_ltl.h), with no clock.  It
 * exists while it has a state or knows an atom (it waits for every atom
 * before it starts, as the kernel's monitor does), but the table's empty
 * slot is a zero word: a stored LTL instance carries LTL_PRESENT in its
 * word, a state bit the model cannot have (at most 31 states in process,
 * monitor.c refuses more).
 */
#define LTL_PRESENT 0x80000000u

/* One step of rule `rule` on the instance `key`, at `now`: the compiled
 * model's vk_decide under the stripe's lock.  An expiry earlier than the
 * stripe's lower bound lowers it and tells the timer thread (outside the
 * lock); so does any expiry while the timer is not running (the first
 * one, or the first in a forked child). */
static inline __attribute__((always_inline)) void step(struct vg_monitor_rt *rt, uint32_t rule,
                                                       uint64_t key, const int64_t *f,
                                                       uint64_t now) {
  const struct vk_rule *r = &rt->vk.rules[rule];
  uint64_t h = mix(key);
  struct stripe *st = &rt->stripes[h >> 58];
  struct vk_result v = {.verdict = VK_OK};
  uint64_t expiry = VK_NEVER, armed = VK_NEVER;
  spin_lock(&st->lock);
  struct hentry *e = (struct hentry *)find(st, key, h, ENTRY_HYBRID);
  if (!e) {
    /* not monitored: only an event that starts an instance creates one */
    if (r->event == VK_FORGET || (r->mode == VK_PLAIN && rt->vk.has_start))
      goto out;
    e = (struct hentry *)vg_table_insert(st, key, h, ENTRY_HYBRID);
    if (!e) {
      atomic_fetch_add_explicit(&rt->dropped, 1, memory_order_relaxed);
      goto out;
    }
    vk_unmonitor(&e->inst);
    if (rt->ltl)
      e->inst.known = 0, e->inst.atoms = 0;
  }
  expiry = e->inst.expiry_ns;
  if (rt->ltl)
    e->inst.word &= ~LTL_PRESENT;
  v = vk_decide(&rt->vk, r, &e->inst, f, now);
  if (!e->inst.word && !e->inst.known) {
    vg_table_erase(st, (struct entry *)e, ENTRY_HYBRID);
  } else if (rt->ltl) {
    e->inst.word |= LTL_PRESENT;
  } else if (e->inst.expiry_ns != VK_NEVER &&
             (e->inst.expiry_ns < st->next_expiry || !vg_monitor_timer_running())) {
    armed = e->inst.expiry_ns;
    if (armed < st->next_expiry)
      __atomic_store_n(&st->next_expiry, armed, __ATOMIC_SEQ_CST);
  }
out:
  spin_unlock(&st->lock);
  if (armed != VK_NEVER)
    vg_monitor_timer_arm(armed);
  if (__builtin_expect(v.verdict != VK_OK, 0))
    report_step(rt, rule, key, v, expiry);
}

/* Not a tail call: reports cut the backtrace at the innermost __vigil_ frame. */
__attribute__((disable_tail_calls)) void
__vigil_monitor_hybrid(struct vigil_monitor *m, struct vigil_monitor_tls *t, uint32_t rule,
                       uint64_t key, const int64_t *fields) {
  if (!vg_monitor_enter(m, t))
    return;
  /* acquire: another thread may have just installed it (a plain mov on x86) */
  struct vg_monitor_rt *rt = __atomic_load_n((struct vg_monitor_rt **)&m->runtime, __ATOMIC_ACQUIRE);
  /* a unit generated for a plain model never calls this; be safe anyway */
  if (__builtin_expect(rt->hybrid && rule < m->nrules, 1)) {
    if (m->scope == VIGIL_MONITOR_THREAD)
      key = (uint64_t)__vigil_monitor_field(VIGIL_MONITOR_FIELD_TID);
    else if (m->scope == VIGIL_MONITOR_GLOBAL)
      key = 0;
    step(rt, rule, key, fields, vg_monitor_now());
  }
  vg_monitor_busy = 0;
}

/* ---- expiries --------------------------------------------------------------------------- */

/* The invariants one scan fired, to report in order once the locks are
 * released (a report may call out, and VIGIL_ON_FAILURE=abort may end the
 * process). */
struct due {
  uint64_t at, key;
  uint32_t state;
};
struct dues {
  struct due *v;
  size_t n, cap;
};

static void push(struct vg_monitor_rt *rt, struct dues *d, uint64_t at, uint64_t key,
                 uint32_t state) {
  if (d->n == d->cap) {
    size_t cap = d->cap ? d->cap * 2 : 16;
    struct due *v = realloc(d->v, cap * sizeof *v);
    if (!v) {
      atomic_fetch_add_explicit(&rt->dropped, 1, memory_order_relaxed);
      return;
    }
    d->v = v, d->cap = cap;
  }
  d->v[d->n++] = (struct due){.at = at, .key = key, .state = state};
}

/* Fire every invariant of one instance that expired by `now`, each at its
 * own expiry (an instance without start rules re-enters its initial state
 * there, whose invariant may expire again before now), as the reference
 * does (cli/model/src/compiled/step.rs, Compiled::expire). */
static void fire(struct vg_monitor_rt *rt, struct hentry *e, uint64_t now, struct dues *d) {
  while (e->inst.word && e->inst.expiry_ns <= now) {
    uint64_t at = e->inst.expiry_ns;
    struct vk_result v = vk_expire(&rt->vk, &e->inst, at);
    if (v.verdict == VK_OK)
      break;
    push(rt, d, at, e->key, v.from);
    if (e->inst.expiry_ns <= at) {
      /* a bound of 0 (`clk < 0`) re-armed at once: it would fire forever */
      vk_unmonitor(&e->inst);
    }
  }
}

/* One stripe, under its lock: fire what expired, drop the instances that
 * ended, and make the stripe's lower bound exact.  Returns it. */
static uint64_t expire_stripe(struct vg_monitor_rt *rt, struct stripe *st, uint64_t now,
                              struct dues *d) {
  uint64_t next = VK_NEVER;
  spin_lock(&st->lock);
  for (uint32_t i = 0; st->slots && i <= st->mask;) {
    struct hentry *e = (struct hentry *)slot_at(st, i, ENTRY_HYBRID);
    if (!e->inst.word) { /* an empty slot */
      i++;
      continue;
    }
    fire(rt, e, now, d);
    if (!e->inst.word) {
      /* later slots may move into slot i: look at it again */
      vg_table_erase(st, (struct entry *)e, ENTRY_HYBRID);
      continue;
    }
    if (e->inst.expiry_ns < next)
      next = e->inst.expiry_ns;
    i++;
  }
  __atomic_store_n(&st->next_expiry, next, __ATOMIC_SEQ_CST);
  spin_unlock(&st->lock);
  return next;
}

/* Expiry first, then key (signed, as the conformance reference orders
 * them). */
static int by_expiry(const void *a, const void *b) {
  const struct due *x = a, *y = b;
  if (x->at != y->at)
    return x->at < y->at ? -1 : 1;
  if (x->key != y->key)
    return (int64_t)x->key < (int64_t)y->key ? -1 : 1;
  return 0;
}

uint64_t vg_monitor_expire(struct vg_monitor_rt *rt, uint64_t now) {
  struct dues d = {0};
  uint64_t next = VK_NEVER;
  for (unsigned i = 0; i < STRIPES; i++) {
    struct stripe *st = &rt->stripes[i];
    uint64_t bound = __atomic_load_n(&st->next_expiry, __ATOMIC_SEQ_CST);
    if (bound <= now)
      bound = expire_stripe(rt, st, now, &d);
    if (bound < next)
      next = bound;
  }
  if (d.n > 1)
    qsort(d.v, d.n, sizeof *d.v, by_expiry);
  for (size_t i = 0; i < d.n; i++) {
    struct violation x = {.reason = R_INVARIANT, .state = d.v[i].state, .key = d.v[i].key,
                          .has_key = rt->m->scope != VIGIL_MONITOR_GLOBAL, .at = d.v[i].at,
                          .when = "time passed"};
    vg_monitor_report(rt, &x);
  }
  free(d.v);
  return next;
}

uint64_t vg_monitor_expire_all(uint64_t now) {
  uint64_t next = VK_NEVER;
  for (struct vg_monitor_rt *rt = atomic_load(&vg_monitors); rt; rt = rt->next) {
    if (!rt->hybrid)
      continue;
    uint64_t n = vg_monitor_expire(rt, now);
    if (n < next)
      next = n;
  }
  return next;
}

/* ---- thread exit, and the manual clock ----------------------------------------------------- */

void vg_monitor_hybrid_thread_exit(struct vg_monitor_rt *rt, uint64_t tid, const char *when) {
  uint64_t h = mix(tid);
  struct stripe *st = &rt->stripes[h >> 58];
  struct vk_inst in;
  struct dues d = {0};
  int found = 0;
  spin_lock(&st->lock);
  struct hentry *e = (struct hentry *)find(st, tid, h, ENTRY_HYBRID);
  if (e) {
    fire(rt, e, vg_monitor_now(), &d); /* what expired before the exit first */
    in = e->inst;
    vg_table_erase(st, (struct entry *)e, ENTRY_HYBRID);
    found = 1;
  }
  spin_unlock(&st->lock);
  for (size_t i = 0; i < d.n; i++) {
    struct violation x = {.reason = R_INVARIANT, .state = d.v[i].state, .key = tid, .has_key = 1,
                          .at = d.v[i].at, .when = "time passed"};
    vg_monitor_report(rt, &x);
  }
  free(d.v);
  if (!found || rt->ltl || !rt->m->check_exit || !in.word || rt->vk.finals[in.word - 1])
    return;
  struct violation x = {.reason = R_NOT_FINAL_AT_EXIT, .state = in.word - 1, .key = tid,
                        .has_key = 1, .when = when};
  vg_monitor_report(rt, &x);
}

void __vigil_monitor_set_time(uint64_t ns) {
  if (!vg_monitor_manual_clock() || vg_monitor_busy)
    return;
  __atomic_store_n(&manual_now, ns, __ATOMIC_RELEASE);
  vg_monitor_busy = 1;
  vg_monitor_expire_all(ns);
  vg_monitor_busy = 0;
}
