/*
 * monitor.c — automaton monitors on C functions (vigil/monitor.h has the
 * contract and the semantics): instance states per thread, global or per
 * object, transitions, `forget`, the exit checks, reports and counters.
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

#include "internal.h"
#include "vigil/monitor.h"
#include "vigil/stream.h"
#include "vigil/vk.h"

extern size_t vg_memory_limit;

/* ---- small helpers ----------------------------------------------------------- */

static _Thread_local int busy;          /* the runtime is working on this thread */
static _Thread_local int thread_exited; /* our thread-exit destructor has run    */

static inline void spin_lock(uint32_t *l) {
  for (unsigned spins = 0;; spins++) {
    uint32_t expected = 0;
    if (__atomic_compare_exchange_n(l, &expected, 1, 1, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
      return;
    if (spins > 64)
      sched_yield();
#if defined(__x86_64__) || defined(__i386__)
    else
      __builtin_ia32_pause();
#endif
  }
}

static inline void spin_unlock(uint32_t *l) { __atomic_store_n(l, 0, __ATOMIC_RELEASE); }

static inline uint64_t ld64(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }

/* ---- per-monitor bookkeeping ---------------------------------------------------- */

#define STRIPES 64

struct entry {
  uint64_t key;
  uint32_t state; /* 0: empty slot; else state + 1 */
  uint32_t reserved;
};

struct stripe {
  uint32_t lock;
  uint32_t count;
  uint32_t mask; /* capacity - 1; 0 with slots == NULL: not allocated */
  uint32_t reserved;
  struct entry *slots;
  char pad[64 - 24];
};
_Static_assert(sizeof(struct stripe) == 64, "one stripe per cache line");

struct vg_monitor_rt {
  struct vigil_monitor *m;
  struct vg_monitor_rt *next;
  atomic_uint_fast64_t events;   /* exited threads, and unregistered events */
  atomic_uint_fast64_t failures;
  atomic_uint_fast64_t dropped;
  struct stripe *stripes;        /* OBJECT scope */
  struct vk_model vk;            /* the compiled model, mapped */
};

static _Atomic(struct vg_monitor_rt *) monitors;
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
  struct vg_monitor_rt *head = atomic_load(&monitors);
  do
    n->next = head;
  while (!atomic_compare_exchange_weak(&monitors, &head, n));
  pthread_once(&exit_once, register_atexit);
  return n;
}

/* ---- threads: registration, counters, exit --------------------------------------- */

struct reg {
  struct vigil_monitor_tls *tls;
  struct vg_monitor_rt *rt;
  struct reg *next, *prev;  /* every live registration */
  struct reg *thread_next;  /* this thread's */
};

static uint32_t live_lock;
static struct reg *live;
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
  spin_lock(&live_lock);
  r->next = live;
  if (live)
    live->prev = r;
  live = r;
  spin_unlock(&live_lock);
  r->thread_next = mine;
  mine = r;
  t->runtime = r;
  t->flags |= TLS_REGISTERED;
  pthread_once(&thread_key_once, make_thread_key);
  pthread_setspecific(thread_key, (void *)1);
}

/* ---- reports ---------------------------------------------------------------------- */

enum reason { R_INVALID, R_NOT_FINAL, R_NOT_FINAL_AT_EXIT };
static const char *const reason_codes[] = {
    [R_INVALID] = "monitor-invalid-event",
    [R_NOT_FINAL] = "not-final",
    [R_NOT_FINAL_AT_EXIT] = "not-final-at-exit",
};

struct violation {
  enum reason reason;
  const struct vigil_monitor_rule *rule; /* NULL at exit */
  uint32_t state;
  int has_key;
  uint64_t key;
  const char *when; /* at exit: "thread exit" / "program exit" */
};

static void format_key(struct vg_buf *b, uint64_t v) {
  if (v < 1000000)
    vg_bprintf(b, "%llu", (unsigned long long)v);
  else if (v >= 0xffffffffffff0000ull)
    vg_bprintf(b, "%lld", (long long)v);
  else
    vg_bprintf(b, "0x%llx", (unsigned long long)v);
}

static const char *basename_of(const char *p) {
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

/* The violation as a `verdict` event of the stream (docs/stream-format.md,
 * "Verdicts"), from the reporting thread, before the report and
 * VIGIL_ON_FAILURE act.  One event per monitor, reason, state and event
 * (declared on first use: the runtime keeps each name once); the words are
 * the instance's key, the state's and the event's index in the model (-1:
 * no model event: `forget`, or an exit check) and the binding rule's line
 * (0 at exit).  Called only when the stream is on: out of line, so that
 * a report without it pays one load and one branch. */
static __attribute__((noinline, cold)) void stream_verdict(const struct vigil_monitor *m,
                                                          const struct violation *x,
                                                          const char *state,
                                                          const char *event) {
  static const char *const types[4] = {"u64", "u64", "i64", "u64"};
  static const char *const names[4] = {"key", "state", "event", "line"};
  struct vg_buf name = {0};
  vg_bprintf(&name, "monitor %s %s %s", m->name, reason_codes[x->reason], state);
  if (x->rule)
    vg_bprintf(&name, " %s", event);
  uint32_t id =
      name.p ? vigil_stream_declare_named(name.p, "verdict", 4, types, names) : UINT32_MAX;
  free(name.p);
  int model_event = x->rule && x->rule->event != VIGIL_MONITOR_FORGET;
  uint64_t w[4] = {x->has_key ? x->key : 0, x->state,
                   model_event ? x->rule->event : (uint64_t)-1, x->rule ? x->rule->line : 0};
  if (id != UINT32_MAX)
    vigil_stream_emit(id, 4, w);
}

static void report(struct vg_monitor_rt *rt, const struct violation *x) {
  struct vigil_monitor *m = rt->m;
  const struct vigil_monitor_model *md = m->model;
  atomic_fetch_add_explicit(&rt->failures, 1, memory_order_relaxed);
  const char *state = x->state < md->nstates ? md->state_names[x->state] : "?";
  const char *event = "";
  if (x->rule)
    event = x->rule->event == VIGIL_MONITOR_FORGET ? "forget" : md->event_names[x->rule->event];

  struct vg_buf assertion = {0}, text = {0}, expl = {0}, ev = {0}, values = {0},
                expected = {0}, heading = {0}, render = {0}, json = {0};
  vg_bprintf(&assertion, "%s (%s)", m->name, m->binding);
  vg_bprintf(&text, "model %s (%s), scope %s", md->name, md->path, m->scope_text);
  switch (x->reason) {
  case R_INVALID:
    vg_bprintf(&expl, "event %s is not allowed in state %s", event, state);
    break;
  case R_NOT_FINAL:
    vg_bprintf(&expl, "the instance was forgotten in state %s, which is not final", state);
    break;
  case R_NOT_FINAL_AT_EXIT:
    vg_bprintf(&expl, "%s in state %s, which is not final",
               strcmp(x->when, "thread exit") ? "the program exited" : "the thread exited", state);
    break;
  }
  if (x->rule)
    vg_bprintf(&ev, "%s (%s:%u)", x->rule->text, basename_of(m->binding), x->rule->line);
  else
    vg_bprintf(&ev, "%s", x->when);
  if (x->has_key) {
    vg_bprintf(&values, "key = ");
    format_key(&values, x->key);
  }
  const char *sep = "";
  const struct vk_model *vk = &((struct vg_monitor_rt *)m->runtime)->vk;
  for (uint32_t e = 0; e < md->nevents; e++)
    if (vk->next[x->state * md->nevents + e] != VK_NONE) {
      vg_bprintf(&expected, "%s%s", sep, md->event_names[e]);
      sep = " | ";
    }
  if (__builtin_expect(__vigil_stream_on, 0))
    stream_verdict(m, x, state, event);
  vg_bprintf(&heading, "vigil: monitor violation: %s (%s)", m->name, m->binding);
  if (x->reason == R_INVALID)
    vg_bprintf(&render, "vigil render %s --highlight %s:%s", md->path, state, event);
  else
    vg_bprintf(&render, "vigil render %s", md->path);

  vg_bprintf(&json, ",\"kind\":\"monitor\",\"monitor\":");
  vg_bjson(&json, m->name);
  vg_bprintf(&json, ",\"binding\":");
  vg_bjson(&json, m->binding);
  vg_bprintf(&json, ",\"model\":");
  vg_bjson(&json, md->path);
  vg_bprintf(&json, ",\"scope\":");
  vg_bjson(&json, m->scope_text);
  vg_bprintf(&json, ",\"state\":");
  vg_bjson(&json, state);
  vg_bprintf(&json, ",\"key\":");
  if (x->has_key) {
    char k[32];
    snprintf(k, sizeof k, "0x%llx", (unsigned long long)x->key);
    vg_bjson(&json, k);
  } else {
    vg_bprintf(&json, "null");
  }
  if (x->rule) {
    vg_bprintf(&json, ",\"source\":");
    vg_bjson(&json, x->rule->source);
    vg_bprintf(&json, ",\"rule_line\":%u", x->rule->line);
  }
  vg_bprintf(&json, ",\"render\":");
  vg_bjson(&json, render.p);

  const char *lines[] = {"state:", state, NULL, NULL};
  const char *tail[] = {"picture:", render.p ? render.p : "", NULL, NULL};
  struct vigil_violation v = {
      .assertion = assertion.p, .text = text.p, .reason = reason_codes[x->reason],
      .explanation = expl.p, .event = ev.p ? ev.p : "", .values = values.p ? values.p : "",
      .expected = expected.p ? expected.p : "", .alternative = -1};
  vg_report_violation(&v, heading.p, lines, tail, json.p);
  free(assertion.p), free(text.p), free(expl.p), free(ev.p), free(values.p);
  free(expected.p), free(heading.p), free(render.p), free(json.p);
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
    report(rt, &x);
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
  report(r->rt, &x);
}

static void thread_exit(void *p) {
  (void)p;
  int was_busy = busy;
  busy = 1;
  for (struct reg *r = mine; r; r = r->thread_next)
    check_tls_at_exit(r, "thread exit");
  spin_lock(&live_lock);
  for (struct reg *r = mine, *next; r; r = next) {
    next = r->thread_next;
    atomic_fetch_add(&r->rt->events, ld64(&r->tls->events));
    r->tls->flags &= ~(uint32_t)TLS_REGISTERED;
    r->tls->runtime = NULL;
    if (r->prev)
      r->prev->next = r->next;
    else
      live = r->next;
    if (r->next)
      r->next->prev = r->prev;
    free(r);
  }
  mine = NULL;
  spin_unlock(&live_lock);
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
  for (struct vg_monitor_rt *rt = atomic_load(&monitors); rt; rt = rt->next) {
    struct vigil_monitor *m = rt->m;
    if (!m->check_exit)
      continue;
    if (m->scope == VIGIL_MONITOR_GLOBAL) {
      spin_lock(&m->lock);
      uint32_t w = m->state;
      spin_unlock(&m->lock);
      if (w && !final_of(m, w - 1)) {
        struct violation x = {.reason = R_NOT_FINAL_AT_EXIT, .state = w - 1, .when = "program exit"};
        report(rt, &x);
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
          report(rt, &x);
        }
      }
    }
  }
  busy = 0;
}

/* ---- statistics ---------------------------------------------------------------------------- */

static void sum(struct vg_monitor_rt *rt, uint64_t *events, uint64_t *failures, uint64_t *dropped) {
  *events += atomic_load(&rt->events);
  *failures += atomic_load(&rt->failures);
  *dropped += atomic_load(&rt->dropped);
  for (struct reg *r = live; r; r = r->next)
    if (r->rt == rt)
      *events += ld64(&r->tls->events);
}

void vg_monitor_totals(struct vigil_totals *t) {
  spin_lock(&live_lock);
  for (struct vg_monitor_rt *rt = atomic_load(&monitors); rt; rt = rt->next) {
    uint64_t ev = 0, fail = 0, drop = 0;
    sum(rt, &ev, &fail, &drop);
    t->monitors++;
    t->monitor_events += ev;
    t->monitor_failures += fail;
    t->events += ev;
    t->failures += fail;
    t->dropped += drop;
  }
  spin_unlock(&live_lock);
}

void vg_monitor_print_stats(int count_mode) {
  struct vg_monitor_rt *head = atomic_load(&monitors);
  if (!head)
    return;
  spin_lock(&live_lock);
  if (!count_mode)
    fprintf(stderr, "vigil: monitors\n  %-32s %12s %10s %8s\n", "monitor", "events",
            "violations", "dropped");
  for (struct vg_monitor_rt *rt = head; rt; rt = rt->next) {
    uint64_t ev = 0, fail = 0, drop = 0;
    sum(rt, &ev, &fail, &drop);
    char name[256];
    snprintf(name, sizeof name, "%s (%s)", rt->m->name, basename_of(rt->m->binding));
    if (!count_mode)
      fprintf(stderr, "  %-32s %12llu %10llu %8llu\n", name, (unsigned long long)ev,
              (unsigned long long)fail, (unsigned long long)drop);
    else if (fail)
      fprintf(stderr, "  monitor %s: %llu\n", name, (unsigned long long)fail);
  }
  spin_unlock(&live_lock);
}
