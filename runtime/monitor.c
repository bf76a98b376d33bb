/*
 * monitor.c — automaton monitors on C functions (vigil/monitor.h has the
 * contract and the semantics): instance states per thread, global or per
 * object, transitions, `forget`, thread registration and the exit checks.
 * Reports are in monitor_report.c, counters in monitor_stats.c, what they
 * share in monitor_internal.h.
 *
 * Where the states live:
 *
 *   per thread  the `state` word of the monitor's _Thread_local slot in the
 *               generated unit (struct vigil_monitor_tls).  No lock.
 *   global      the descriptor's `state` word, under the descriptor's spin
 *               lock.
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
 * the table update, never while reporting.
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

extern size_t vg_memory_limit;

static _Thread_local int busy;          /* the runtime is working on this thread */
static _Thread_local int thread_exited; /* our thread-exit destructor has run    */


_Atomic(struct vg_monitor_rt *) vg_monitors;
static atomic_size_t table_bytes;

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
  if (!bad && n->vk.h->kind != VK_DA)
    bad = "its compiled model has clocks, which in-process monitors do not run yet";
  if (bad) {
    static atomic_int told;
    if (!atomic_exchange(&told, 1))
      fprintf(stderr, "vigil: monitor %s: %s: regenerate it with this vigil; the monitor is off\n",
              m->name, bad);
    free(n);
    return NULL;
  }
  if (m->scope == VIGIL_MONITOR_OBJECT) {
    n->stripes = aligned_alloc(64, sizeof(struct stripe) * STRIPES);
    if (!n->stripes) {
      free(n);
      return NULL;
    }
    memset(n->stripes, 0, sizeof(struct stripe) * STRIPES);
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
static pthread_key_t thread_key;
static pthread_once_t thread_key_once = PTHREAD_ONCE_INIT;

static void thread_exit(void *p);
static void make_thread_key(void) { pthread_key_create(&thread_key, thread_exit); }

enum { TLS_REGISTERED = 1 };

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
  pthread_once(&thread_key_once, make_thread_key);
  pthread_setspecific(thread_key, (void *)1);
}

/* ---- the transition ------------------------------------------------------------------- */

/* One event (or `forget`) of rule `rule` on one state word (0: not
 * monitored, else state + 1): the compiled model's step on a plain
 * automaton, vk_step_word() (what vk_decide() does for one; in-process
 * monitors run the untimed automaton: the generator compiles hybrid models
 * without their clocks, says so, and get_rt refuses any other blob).
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

static inline int final_of(const struct vigil_monitor *m, uint32_t state) {
  return ((const struct vg_monitor_rt *)m->runtime)->vk.finals[state];
}

/* ---- per-object table ------------------------------------------------------------------ */

/* Fibonacci hashing: the product's top 6 bits pick the stripe, the 32 bits
 * below them the home slot (keys are mostly aligned pointers, whose low
 * bits carry nothing; the high bits of the product mix all of them). */
static inline uint64_t mix(uint64_t x) { return x * 0x9e3779b97f4a7c15ull; }
static inline uint32_t home(uint64_t h, uint32_t mask) { return (uint32_t)(h >> 26) & mask; }

static struct entry *find(struct stripe *st, uint64_t key, uint64_t h) {
  if (!st->slots)
    return NULL;
  for (uint32_t i = home(h, st->mask);; i = (i + 1) & st->mask) {
    struct entry *e = &st->slots[i];
    if (!e->state)
      return NULL;
    if (e->key == key)
      return e;
  }
}

static __attribute__((noinline)) int grow(struct stripe *st) {
  uint32_t cap = st->slots ? (st->mask + 1) * 2 : 16;
  size_t bytes = (size_t)cap * sizeof(struct entry);
  if (atomic_fetch_add(&table_bytes, bytes) + bytes > vg_memory_limit) {
    atomic_fetch_sub(&table_bytes, bytes);
    return -1;
  }
  struct entry *n = calloc(cap, sizeof *n);
  if (!n) {
    atomic_fetch_sub(&table_bytes, bytes);
    return -1;
  }
  for (uint32_t i = 0; st->slots && i <= st->mask; i++) {
    struct entry *e = &st->slots[i];
    if (!e->state)
      continue;
    uint32_t j = home(mix(e->key), cap - 1);
    while (n[j].state)
      j = (j + 1) & (cap - 1);
    n[j] = *e;
  }
  if (st->slots) {
    free(st->slots);
    atomic_fetch_sub(&table_bytes, (size_t)(st->mask + 1) * sizeof(struct entry));
  }
  st->slots = n;
  st->mask = cap - 1;
  return 0;
}

static __attribute__((noinline)) struct entry *insert(struct stripe *st, uint64_t key,
                                                     uint64_t h) {
  if (!st->slots || (st->count + 1) * 4 > (st->mask + 1) * 3)
    if (grow(st))
      return NULL;
  uint32_t i = home(h, st->mask);
  while (st->slots[i].state)
    i = (i + 1) & st->mask;
  st->slots[i].key = key;
  st->count++;
  return &st->slots[i];
}

/* Linear probing's backward-shift deletion: no tombstones. */
static __attribute__((noinline)) void erase(struct stripe *st, struct entry *e) {
  uint32_t i = (uint32_t)(e - st->slots);
  st->count--;
  for (uint32_t j = (i + 1) & st->mask;; j = (j + 1) & st->mask) {
    struct entry *n = &st->slots[j];
    if (!n->state)
      break;
    uint32_t h = home(mix(n->key), st->mask);
    /* move n into the hole at i unless its home lies cyclically in (i, j] */
    if (((j - h) & st->mask) >= ((j - i) & st->mask)) {
      st->slots[i] = *n;
      i = j;
    }
  }
  st->slots[i].state = 0;
  st->slots[i].key = 0;
}

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
 * for the monitor's table). */
static __attribute__((noinline, cold)) int first_event(struct vigil_monitor *m,
                                                       struct vigil_monitor_tls *t) {
  vg_config_init();
  struct vg_monitor_rt *rt = get_rt(m);
  if (!rt)
    return 0;
  if (!thread_exited)
    register_tls(rt, t);
  if (t->flags & TLS_REGISTERED)
    __atomic_store_n(&t->events, t->events + 1, __ATOMIC_RELAXED);
  else
    atomic_fetch_add_explicit(&rt->events, 1, memory_order_relaxed);
  return 1;
}

/* The guard and this thread's event count.  0: ignore the event. */
static inline int enter(struct vigil_monitor *m, struct vigil_monitor_tls *t) {
  if (busy)
    return 0;
  busy = 1;
  if (__builtin_expect(t->flags & TLS_REGISTERED, 1)) {
    __atomic_store_n(&t->events, t->events + 1, __ATOMIC_RELAXED);
    return 1;
  }
  if (first_event(m, t))
    return 1;
  busy = 0;
  return 0;
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
  struct entry *e = find(st, key, h);
  uint32_t w = e ? e->state : 0;
  if (!e) {
    /* not monitored: only an event that starts an instance creates one */
    if (forget || (rt->vk.rules[rule].mode == VK_PLAIN && rt->vk.has_start))
      goto out;
    e = insert(st, key, h);
    if (!e) {
      atomic_fetch_add_explicit(&rt->dropped, 1, memory_order_relaxed);
      goto out;
    }
  }
  failed = forget ? end(m, &w, &bad) : step(m, rule, &w, &bad);
  if (w)
    e->state = w;
  else
    erase(st, e);
out:
  spin_unlock(&st->lock);
  if (failed)
    fail(m, rule, forget ? R_NOT_FINAL : R_INVALID, bad, 1, key);
}

/* Not tail calls: reports cut the backtrace at the innermost __vigil_ frame. */
__attribute__((disable_tail_calls)) void
__vigil_monitor_event(struct vigil_monitor *m, struct vigil_monitor_tls *t, uint32_t rule,
                      uint64_t key) {
  if (!enter(m, t))
    return;
  uint32_t bad;
  switch (m->scope) {
  case VIGIL_MONITOR_THREAD:
    if (__builtin_expect(step(m, rule, &t->state, &bad), 0))
      fail(m, rule, R_INVALID, bad, 0, key);
    break;
  case VIGIL_MONITOR_GLOBAL: {
    spin_lock(&m->lock);
    int failed = step(m, rule, &m->state, &bad);
    spin_unlock(&m->lock);
    if (__builtin_expect(failed, 0))
      fail(m, rule, R_INVALID, bad, 0, key);
    break;
  }
  default:
    object_event(m, rule, key, 0);
  }
  busy = 0;
}

__attribute__((disable_tail_calls)) void
__vigil_monitor_forget(struct vigil_monitor *m, struct vigil_monitor_tls *t, uint32_t rule,
                       uint64_t key) {
  if (!enter(m, t))
    return;
  uint32_t bad;
  switch (m->scope) {
  case VIGIL_MONITOR_THREAD:
    if (end(m, &t->state, &bad))
      fail(m, rule, R_NOT_FINAL, bad, 0, key);
    break;
  case VIGIL_MONITOR_GLOBAL: {
    spin_lock(&m->lock);
    int failed = end(m, &m->state, &bad);
    spin_unlock(&m->lock);
    if (failed)
      fail(m, rule, R_NOT_FINAL, bad, 0, key);
    break;
  }
  default:
    object_event(m, rule, key, 1);
  }
  busy = 0;
}

/* ---- exits ---------------------------------------------------------------------------------- */

static void check_tls_at_exit(struct reg *r, const char *when) {
  struct vigil_monitor *m = r->rt->m;
  if (m->scope != VIGIL_MONITOR_THREAD || !m->check_exit || !r->tls->state)
    return;
  uint32_t s = r->tls->state - 1;
  if (final_of(m, s))
    return;
  struct violation x = {.reason = R_NOT_FINAL_AT_EXIT, .state = s, .when = when};
  vg_monitor_report(r->rt, &x);
}

static void thread_exit(void *p) {
  (void)p;
  int was_busy = busy;
  busy = 1;
  for (struct reg *r = mine; r; r = r->thread_next)
    check_tls_at_exit(r, "thread exit");
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
  thread_exited = 1;
  busy = was_busy;
}

/* Program exit: the exiting thread's per-thread instances, the global
 * instance, and every live object, for the monitors that ask for it. */
static void at_exit_check(void) {
  if (busy)
    return;
  busy = 1;
  for (struct reg *r = mine; r; r = r->thread_next)
    check_tls_at_exit(r, "program exit");
  for (struct vg_monitor_rt *rt = atomic_load(&vg_monitors); rt; rt = rt->next) {
    struct vigil_monitor *m = rt->m;
    if (!m->check_exit)
      continue;
    if (m->scope == VIGIL_MONITOR_GLOBAL) {
      spin_lock(&m->lock);
      uint32_t w = m->state;
      spin_unlock(&m->lock);
      if (w && !final_of(m, w - 1)) {
        struct violation x = {.reason = R_NOT_FINAL_AT_EXIT, .state = w - 1, .when = "program exit"};
        vg_monitor_report(rt, &x);
      }
    } else if (m->scope == VIGIL_MONITOR_OBJECT) {
      for (unsigned i = 0; i < STRIPES; i++) {
        struct stripe *st = &rt->stripes[i];
        for (;;) {
          /* report outside the lock, one entry at a time */
          struct violation x = {.reason = R_NOT_FINAL_AT_EXIT, .has_key = 1, .when = "program exit"};
          int found = 0;
          spin_lock(&st->lock);
          for (uint32_t j = 0; st->slots && j <= st->mask; j++) {
            struct entry *e = &st->slots[j];
            if (e->state && !final_of(m, e->state - 1)) {
              x.state = e->state - 1;
              x.key = e->key;
              erase(st, e);
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
  }
  busy = 0;
}

