/*
 * monitor.c — automaton monitors on C functions (vigil/monitor.h has the
 * contract and the semantics): instance states per thread, global or per
 * object, transitions, `forget`, thread registration and the exit checks.
 * Reports are in monitor_report.c, counters in monitor_stats.c, the
 * table's slow paths in monitor_table.c, hybrid automata (clocks) in
 * monitor_hybrid.c and monitor_timer.c, what they share in
 * monitor_internal.h.  This file is the plain models' event path.
 *
 * Where the states live:
 *
 *   per thread  the `state` word of the monitor's _Thread_local slot in the
 *               generated unit (struct vigil_monitor_tls).  No lock.
 *   global      the descriptor's `state` word, changed by compare-and-swap
 *               only: the hooks' inline path swaps it too (vigil/monitor.h),
 *               and a lock would have to be taken there as well.  A step
 *               is a pure function of the word, so a lost swap just steps
 *               again from the word that won; each event is one swap, so
 *               the states the instance goes through are a sequence of
 *               whole events (linearisable), as under the lock before.
 *   per object  a hash table key -> state, split into 64 stripes by the
 *               key's hash.  Each stripe is its own open-addressing table
 *               (linear probing, backward-shift deletion, doubling) under
 *               its own spin lock in its own cache line.  A transition is a
 *               read-modify-write of one entry that must be atomic with the
 *               check of the old state, and `forget` removes entries, so a
 *               lock-free table would need a CAS loop per entry plus safe
 *               memory reclamation for resizing and deletion; a striped
 *               spin lock held for a few dozen instructions gives the same
 *               scalability for distinct objects (threads working on
 *               different mutexes almost never share a stripe) with a
 *               fraction of the code.  Spin locks, not pthread mutexes: a
 *               binding may well monitor pthread_mutex_* and a program may
 *               define (interpose) them, and a spin lock never calls out.
 *
 * The runtime is a native archive: the pass never instruments it, so the
 * calls it makes are not monitored unless the program defines them itself
 * (callee side).  A thread-local guard ignores every monitor event raised
 * while the runtime is already working on this thread (a custom handler or
 * an interposed malloc calling monitored code); locks are only held around
 * the table update, never while reporting.  The hooks' inline path does
 * not read that guard (it would cost every inline event a load and a
 * branch): wherever the runtime may run such code it parks the thread's
 * TLS slots instead (vg_monitor_park), which sends their events here.
 *
 * Counters: each thread counts its events in its own TLS slot (no shared
 * cache line per event); a slot is registered on the thread's first event,
 * summed on demand by vigil_get_totals, and folded into the monitor's
 * totals when the thread exits.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "monitor_internal.h"
#include "vigil/stream.h"

_Thread_local int vg_monitor_busy;      /* the runtime is working on this thread */
static _Thread_local int thread_exited; /* our thread-exit destructor has run    */

_Atomic(struct vg_monitor_rt *) vg_monitors;

static void at_exit_check(void);
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;
static void register_atexit(void) { atexit(at_exit_check); }

static struct vg_monitor_rt *get_rt(struct vigil_monitor *m) {
  struct vg_monitor_rt *rt = __atomic_load_n((struct vg_monitor_rt **)&m->runtime, __ATOMIC_ACQUIRE);
  if (rt)
    return rt;
  if (m->abi != VIGIL_MONITOR_ABI) {
    static atomic_int told;
    if (!atomic_exchange(&told, 1))
      fprintf(stderr,
              "vigil: monitor %s was generated for monitor ABI %u, this runtime implements %u: "
              "regenerate it with this vigil; the monitor is off\n",
              m->name, m->abi, VIGIL_MONITOR_ABI);
    return NULL;
  }
  struct vg_monitor_rt *n = calloc(1, sizeof *n);
  if (!n)
    return NULL;
  n->m = m;
  const char *bad = vk_model_open(&n->vk, m->model->compiled, m->model->compiled_size);
  if (!bad && (n->vk.h->nstates != m->model->nstates || n->vk.h->nevents != m->model->nevents ||
               n->vk.h->nrules != m->nrules))
    bad = "its compiled model does not match its names and rules";
  if (!bad && n->vk.h->kind == VK_LTL && n->vk.h->nstates > 31)
    bad = "its LTL automaton has more than the 31 states in-process monitors run";
  if (!bad && n->vk.h->kind == VK_HA && m->model->nguards != n->vk.h->nguards)
    bad = "its guards do not match its compiled model";
  if (bad) {
    static atomic_int told;
    if (!atomic_exchange(&told, 1))
      fprintf(stderr, "vigil: monitor %s: %s: regenerate it with this vigil; the monitor is off\n",
              m->name, bad);
    free(n);
    return NULL;
  }
  n->hybrid = n->vk.h->kind != VK_DA;
  n->ltl = n->vk.h->kind == VK_LTL;
  if (m->scope == VIGIL_MONITOR_OBJECT || n->hybrid) {
    n->stripes = aligned_alloc(64, sizeof(struct stripe) * STRIPES);
    if (!n->stripes) {
      free(n);
      return NULL;
    }
    memset(n->stripes, 0, sizeof(struct stripe) * STRIPES);
    for (unsigned i = 0; i < STRIPES; i++)
      n->stripes[i].next_expiry = VK_NEVER;
  }
  struct vg_monitor_rt *expected = NULL;
  if (!__atomic_compare_exchange_n((struct vg_monitor_rt **)&m->runtime, &expected, n, 0,
                                   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    free(n->stripes);
    free(n);
    return expected;
  }
  struct vg_monitor_rt *head = atomic_load(&vg_monitors);
  do
    n->next = head;
  while (!atomic_compare_exchange_weak(&vg_monitors, &head, n));
  pthread_once(&exit_once, register_atexit);
  return n;
}

/* ---- threads: registration, counters, exit --------------------------------------- */


uint32_t vg_monitor_live_lock;
struct reg *vg_monitor_live;
static _Thread_local struct reg *mine;

/* The inline path off in every registered slot of this thread, or back on
 * where it is not off for good (TLS_SLOW).  A slot that is not registered
 * needs nothing: its THREAD word is 0 or its GLOBAL mark is, or it is
 * parked for good; either way its events come here.  Cheap (this thread's
 * registrations, one per monitor it used) and off every hot path. */
static _Thread_local unsigned park_depth; /* nested parks: the outermost unparks */

void vg_monitor_park(void) {
  if (park_depth++)
    return;
  for (struct reg *r = mine; r; r = r->thread_next)
    r->tls->state |= VIGIL_MONITOR_PARKED;
}

void vg_monitor_unpark(void) {
  if (--park_depth)
    return;
  for (struct reg *r = mine; r; r = r->thread_next)
    if (!(r->tls->flags & TLS_SLOW))
      r->tls->state &= ~VIGIL_MONITOR_PARKED;
}

/* No inline path on this slot any more: the runtime decides its events. */
static void slow_for_good(struct vigil_monitor_tls *t) {
  t->flags |= TLS_SLOW;
  t->state |= VIGIL_MONITOR_PARKED;
}
static pthread_key_t thread_key;
static pthread_once_t thread_key_once = PTHREAD_ONCE_INIT;

static void thread_exit(void *p);
static void make_thread_key(void) { pthread_key_create(&thread_key, thread_exit); }

static void register_tls(struct vg_monitor_rt *rt, struct vigil_monitor_tls *t) {
  struct reg *r = calloc(1, sizeof *r);
  if (!r)
    return;
  r->tls = t;
  r->rt = rt;
  spin_lock(&vg_monitor_live_lock);
  r->next = vg_monitor_live;
  if (vg_monitor_live)
    vg_monitor_live->prev = r;
  vg_monitor_live = r;
  spin_unlock(&vg_monitor_live_lock);
  r->thread_next = mine;
  mine = r;
  t->runtime = r;
  t->flags |= TLS_REGISTERED;
  /* GLOBAL: the mark the inline path looks for, parked until the caller
   * unparks (still in the runtime) */
  if (rt->m->scope == VIGIL_MONITOR_GLOBAL && !rt->hybrid)
    t->state = 1 | VIGIL_MONITOR_PARKED;
  pthread_once(&thread_key_once, make_thread_key);
  pthread_setspecific(thread_key, (void *)1);
}

/* ---- the transition ------------------------------------------------------------------- */

/* One event (or `forget`) of rule `rule` on one state word (0: not
 * monitored, else state + 1): the compiled model's step on a plain
 * automaton, vk_step_word() (what vk_decide() does for one; hybrid models
 * take __vigil_monitor_hybrid, monitor_hybrid.c).
 * Returns 1 and sets *bad to the state on a violation. */
static inline int step(const struct vigil_monitor *m, uint32_t rule, uint32_t *word, uint32_t *bad) {
  const struct vk_model *vk = &((const struct vg_monitor_rt *)m->runtime)->vk;
  struct vk_result v = vk_event_word(vk, &vk->rules[rule], word);
  *bad = v.from;
  return v.verdict != VK_OK;
}

/* `forget` on one state word: 1 (and *bad) when it was not final. */
static inline int end(const struct vigil_monitor *m, uint32_t *word, uint32_t *bad) {
  struct vk_result v = vk_forget_word(&((const struct vg_monitor_rt *)m->runtime)->vk, word);
  *bad = v.from;
  return v.verdict != VK_OK;
}

/* The step (forget: the end) on a THREAD slot's word, its PARKED bit kept
 * out of the model's way. */
static inline int step_tls(const struct vigil_monitor *m, uint32_t rule, int forget,
                           struct vigil_monitor_tls *t, uint32_t *bad) {
  uint32_t parked = t->state & VIGIL_MONITOR_PARKED, w = t->state & ~VIGIL_MONITOR_PARKED;
  int failed = forget ? end(m, &w, bad) : step(m, rule, &w, bad);
  t->state = w | parked;
  return failed;
}

/* The step (forget: the end) on the GLOBAL word, one swap per event. */
static inline int step_global(struct vigil_monitor *m, uint32_t rule, int forget, uint32_t *bad) {
  uint32_t w = __atomic_load_n(&m->state, __ATOMIC_RELAXED), n;
  int failed;
  do {
    n = w;
    failed = forget ? end(m, &n, bad) : step(m, rule, &n, bad);
  } while (!__atomic_compare_exchange_n(&m->state, &w, n, 1, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
  return failed;
}

static inline int final_of(const struct vigil_monitor *m, uint32_t state) {
  return ((const struct vg_monitor_rt *)m->runtime)->vk.finals[state];
}

/* ---- per-object table (monitor_internal.h, monitor_table.c) ----------------------------- */

/* ---- entry points ------------------------------------------------------------------------ */

static _Thread_local int64_t cached_tid;
static int64_t cached_tgid;
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;
static void after_fork(void) {
  cached_tid = 0;
  cached_tgid = 0;
}
static void install_fork_handler(void) { pthread_atfork(NULL, NULL, after_fork); }

int64_t __vigil_monitor_field(uint32_t which) {
  switch (which) {
  case VIGIL_MONITOR_FIELD_TID:
    if (__builtin_expect(!cached_tid, 0)) {
      pthread_once(&fork_once, install_fork_handler);
      cached_tid = gettid();
    }
    return cached_tid;
  case VIGIL_MONITOR_FIELD_TGID: {
    int64_t p = __atomic_load_n(&cached_tgid, __ATOMIC_RELAXED);
    if (!p) {
      pthread_once(&fork_once, install_fork_handler);
      p = getpid();
      __atomic_store_n(&cached_tgid, p, __ATOMIC_RELAXED);
    }
    return p;
  }
  case VIGIL_MONITOR_FIELD_CPU:
    return sched_getcpu();
  default:
    return 0;
  }
}

/* A violation: reported outside every lock (the report may call out, and
 * VIGIL_ON_FAILURE=abort may end the process). */
static __attribute__((noinline, cold)) void fail(struct vigil_monitor *m, uint32_t rule,
                                                 enum reason why, uint32_t state, int has_key,
                                                 uint64_t key) {
  struct vg_monitor_rt *rt = __atomic_load_n((struct vg_monitor_rt **)&m->runtime, __ATOMIC_ACQUIRE);
  struct violation x = {.reason = why, .rule = &m->rules[rule], .state = state, .has_key = has_key, .key = key};
  if (rt)
    vg_monitor_report(rt, &x);
}

/* The first event of a monitor on this thread (or ever): bookkeeping, and
 * this event's count.  Returns 0 when the event must be ignored (no memory
 * for the monitor's table).  Allocation and pthread_once may reach code
 * the program defines: the thread's slots are parked meanwhile. */
__attribute__((noinline, cold)) int vg_monitor_first_event(struct vigil_monitor *m,
                                                          struct vigil_monitor_tls *t) {
  vg_monitor_park();
  vg_config_init();
  struct vg_monitor_rt *rt = get_rt(m);
  if (!rt) {
    vg_monitor_unpark();
    return 0;
  }
  if (!thread_exited)
    register_tls(rt, t);
  if (t->flags & TLS_REGISTERED) {
    __atomic_store_n(&t->events, t->events + 1, __ATOMIC_RELAXED);
    /* the generic engine only, as the assertions' shortcuts (config.c) */
    if (!vg_config.shortcuts)
      slow_for_good(t);
  } else {
    /* counted where no inline path can count it: there is none */
    atomic_fetch_add_explicit(&rt->events, 1, memory_order_relaxed);
    slow_for_good(t);
  }
  vg_monitor_unpark();
  return 1;
}

/* Per-object scope: the instance `key` in its stripe. */
static inline __attribute__((always_inline)) void object_event(struct vigil_monitor *m,
                                                   uint32_t rule, uint64_t key, int forget) {
  struct vg_monitor_rt *rt = m->runtime;
  uint64_t h = mix(key);
  struct stripe *st = &rt->stripes[h >> 58];
  uint32_t bad = 0;
  int failed = 0;
  spin_lock(&st->lock);
  struct entry *e = find(st, key, h, ENTRY_PLAIN);
  uint32_t w = e ? e->state : 0;
  if (!e) {
    /* not monitored: only an event that starts an instance creates one */
    if (forget || (rt->vk.rules[rule].mode == VK_PLAIN && rt->vk.has_start))
      goto out;
    e = vg_table_insert(st, key, h, ENTRY_PLAIN);
    if (!e) {
      atomic_fetch_add_explicit(&rt->dropped, 1, memory_order_relaxed);
      goto out;
    }
  }
  failed = forget ? end(m, &w, &bad) : step(m, rule, &w, &bad);
  if (w)
    e->state = w;
  else
    vg_table_erase(st, e, ENTRY_PLAIN);
out:
  spin_unlock(&st->lock);
  if (failed)
    fail(m, rule, forget ? R_NOT_FINAL : R_INVALID, bad, 1, key);
}

/* Not tail calls: reports cut the backtrace at the innermost __vigil_ frame. */
__attribute__((disable_tail_calls)) void
__vigil_monitor_event(struct vigil_monitor *m, struct vigil_monitor_tls *t, uint32_t rule,
                      uint64_t key) {
  if (!vg_monitor_enter(m, t))
    return;
  uint32_t bad;
  /* Per-object events all come here; thread and global ones only when
   * their hook's inline path did not decide (vigil/monitor.h). */
  if (__builtin_expect(m->scope == VIGIL_MONITOR_OBJECT, 1)) {
    object_event(m, rule, key, 0);
  } else if (m->scope == VIGIL_MONITOR_THREAD) {
    if (step_tls(m, rule, 0, t, &bad))
      fail(m, rule, R_INVALID, bad, 0, key);
  } else if (step_global(m, rule, 0, &bad)) {
    fail(m, rule, R_INVALID, bad, 0, key);
  }
  vg_monitor_busy = 0;
}

__attribute__((disable_tail_calls)) void
__vigil_monitor_forget(struct vigil_monitor *m, struct vigil_monitor_tls *t, uint32_t rule,
                       uint64_t key) {
  if (!vg_monitor_enter(m, t))
    return;
  uint32_t bad;
  switch (m->scope) {
  case VIGIL_MONITOR_THREAD:
    if (step_tls(m, rule, 1, t, &bad))
      fail(m, rule, R_NOT_FINAL, bad, 0, key);
    break;
  case VIGIL_MONITOR_GLOBAL:
    if (step_global(m, rule, 1, &bad))
      fail(m, rule, R_NOT_FINAL, bad, 0, key);
    break;
  default:
    object_event(m, rule, key, 1);
  }
  vg_monitor_busy = 0;
}

/* ---- exits ---------------------------------------------------------------------------------- */

static void check_tls_at_exit(struct reg *r, const char *when) {
  struct vigil_monitor *m = r->rt->m;
  uint32_t w = r->tls->state & ~VIGIL_MONITOR_PARKED;
  if (m->scope != VIGIL_MONITOR_THREAD || !m->check_exit || !w)
    return;
  uint32_t s = w - 1;
  if (final_of(m, s))
    return;
  struct violation x = {.reason = R_NOT_FINAL_AT_EXIT, .state = s, .when = when};
  vg_monitor_report(r->rt, &x);
}

static void thread_exit(void *p) {
  (void)p;
  int was_busy = vg_monitor_busy;
  vg_monitor_busy = 1;
  vg_monitor_park();
  for (struct reg *r = mine; r; r = r->thread_next) {
    if (r->rt->hybrid && r->rt->m->scope == VIGIL_MONITOR_THREAD)
      vg_monitor_hybrid_thread_exit(r->rt, (uint64_t)__vigil_monitor_field(VIGIL_MONITOR_FIELD_TID),
                                    "thread exit");
    else
      check_tls_at_exit(r, "thread exit");
  }
  /* later events (another destructor's) are decided and counted by the
   * runtime (rt->events): the registrations go now */
  for (struct reg *r = mine; r; r = r->thread_next)
    slow_for_good(r->tls);
  spin_lock(&vg_monitor_live_lock);
  for (struct reg *r = mine, *next; r; r = next) {
    next = r->thread_next;
    atomic_fetch_add(&r->rt->events, ld64(&r->tls->events));
    r->tls->flags &= ~(uint32_t)TLS_REGISTERED;
    r->tls->runtime = NULL;
    if (r->prev)
      r->prev->next = r->next;
    else
      vg_monitor_live = r->next;
    if (r->next)
      r->next->prev = r->prev;
    free(r);
  }
  mine = NULL;
  spin_unlock(&vg_monitor_live_lock);
  vg_monitor_unpark();
  thread_exited = 1;
  vg_monitor_busy = was_busy;
}

/* Every instance of rt's table in a state that is not final, reported and
 * removed: one at a time, outside the stripe's lock. */
static void table_at_exit(struct vg_monitor_rt *rt, size_t esz, int has_key) {
  for (unsigned i = 0; i < STRIPES; i++) {
    struct stripe *st = &rt->stripes[i];
    for (;;) {
      struct violation x = {.reason = R_NOT_FINAL_AT_EXIT, .has_key = has_key, .when = "program exit"};
      int found = 0;
      spin_lock(&st->lock);
      for (uint32_t j = 0; st->slots && j <= st->mask; j++) {
        struct entry *e = slot_at(st, j, esz);
        if (e->state && !final_of(rt->m, e->state - 1)) {
          x.state = e->state - 1;
          x.key = e->key;
          vg_table_erase(st, e, esz);
          found = 1;
          break;
        }
      }
      spin_unlock(&st->lock);
      if (!found)
        break;
      vg_monitor_report(rt, &x);
    }
  }
}

/* Program exit: the exiting thread's per-thread instances, the global
 * instance, and every live object, for the monitors that ask for it.
 * Hybrid monitors keep all their instances in the table (every thread's,
 * for scope thread).  The timer thread stops first, after one last expiry
 * scan, so that an invariant that expired before the exit is reported as
 * such and not as a state that is not final. */
static void at_exit_check(void) {
  vg_monitor_timer_stop();
  if (vg_monitor_busy)
    return;
  vg_monitor_busy = 1;
  for (struct reg *r = mine; r; r = r->thread_next)
    if (!r->rt->hybrid)
      check_tls_at_exit(r, "program exit");
  for (struct vg_monitor_rt *rt = atomic_load(&vg_monitors); rt; rt = rt->next) {
    struct vigil_monitor *m = rt->m;
    if (!m->check_exit || rt->ltl)
      continue;
    if (rt->hybrid) {
      table_at_exit(rt, ENTRY_HYBRID, m->scope != VIGIL_MONITOR_GLOBAL);
    } else if (m->scope == VIGIL_MONITOR_GLOBAL) {
      uint32_t w = __atomic_load_n(&m->state, __ATOMIC_ACQUIRE);
      if (w && !final_of(m, w - 1)) {
        struct violation x = {.reason = R_NOT_FINAL_AT_EXIT, .state = w - 1, .when = "program exit"};
        vg_monitor_report(rt, &x);
      }
    } else if (m->scope == VIGIL_MONITOR_OBJECT) {
      table_at_exit(rt, ENTRY_PLAIN, 1);
    }
  }
  vg_monitor_busy = 0;
}
