/*
 * monitor_internal.h — what the in-process monitors' runtime shares between
 * its files: monitor.c (instances, transitions, threads, exits),
 * monitor_table.c (the per-object table's slow paths), monitor_hybrid.c
 * (hybrid automata: clocks, the expiry scan), monitor_timer.c (the timer
 * thread), monitor_report.c (violation reports) and monitor_stats.c
 * (counters).  The plain event path lives in monitor.c alone, so that its
 * helpers inline; the helpers both event paths need are inline here.
 */
#ifndef VG_MONITOR_INTERNAL_H
#define VG_MONITOR_INTERNAL_H

#include <sched.h>
#include <stdint.h>

#include "internal.h"
#include "vigil/monitor.h"
#include "vigil/vk.h"

/* Spin locks, not pthread mutexes: a binding may monitor pthread_mutex_*
 * and a program may interpose them; a spin lock never calls out. */
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

/* A slot of the per-object table.  Plain models store the state word
 * alone (16 bytes a slot); hybrid ones a whole instance (struct hentry,
 * 40 bytes), whose `word` sits where `state` does, so that the table's
 * code reads both through struct entry with the slot size as a
 * parameter (a constant on each event path: the plain path's code is what
 * it was). */
struct entry {
  uint64_t key;
  uint32_t state; /* 0: empty slot; else state + 1 */
  uint32_t reserved;
};

struct hentry {
  uint64_t key;
  struct vk_inst inst;
};
_Static_assert(__builtin_offsetof(struct hentry, inst.word) == __builtin_offsetof(struct entry, state),
               "a hybrid slot's state word is where a plain slot's is");
#define ENTRY_PLAIN sizeof(struct entry)
#define ENTRY_HYBRID sizeof(struct hentry)

struct stripe {
  uint32_t lock;
  uint32_t count;
  uint32_t mask; /* capacity - 1; 0 with slots == NULL: not allocated */
  uint32_t reserved;
  void *slots;   /* struct entry or struct hentry [mask + 1] */
  /* Hybrid: no instance of the stripe expires before this (ns; VK_NEVER:
   * none armed).  Lowered under the lock by the event that arms an
   * earlier expiry, made exact by the expiry scan; read by the timer
   * thread without the lock (monitor_timer.c says why that is safe). */
  uint64_t next_expiry;
  char pad[64 - 32];
};
_Static_assert(sizeof(struct stripe) == 64, "one stripe per cache line");

static inline struct entry *slot_at(const struct stripe *st, uint32_t i, size_t esz) {
  return (struct entry *)((char *)st->slots + (size_t)i * esz);
}

/* Fibonacci hashing: the product's top 6 bits pick the stripe, the 32 bits
 * below them the home slot (keys are mostly aligned pointers, whose low
 * bits carry nothing; the high bits of the product mix all of them). */
static inline uint64_t mix(uint64_t x) { return x * 0x9e3779b97f4a7c15ull; }
static inline uint32_t home(uint64_t h, uint32_t mask) { return (uint32_t)(h >> 26) & mask; }

/* Plain `inline`: forcing it (always_inline) changed the register
 * allocation of the plain event path, 2-3 instructions an event more. */
static inline struct entry *find(struct stripe *st, uint64_t key, uint64_t h, size_t esz) {
  if (!st->slots)
    return NULL;
  for (uint32_t i = home(h, st->mask);; i = (i + 1) & st->mask) {
    struct entry *e = slot_at(st, i, esz);
    if (!e->state)
      return NULL;
    if (e->key == key)
      return e;
  }
}

/* monitor_table.c: a new slot for `key` (its state word 0, the rest of a
 * hybrid slot zero), or NULL past VIGIL_MEMORY_LIMIT; and the removal of
 * one (backward-shift deletion: later slots may move into it). */
struct entry *vg_table_insert(struct stripe *st, uint64_t key, uint64_t h, size_t esz);
void vg_table_erase(struct stripe *st, struct entry *e, size_t esz);

struct vg_monitor_rt {
  struct vigil_monitor *m;
  struct vg_monitor_rt *next;
  atomic_uint_fast64_t events;   /* exited threads, and unregistered events */
  atomic_uint_fast64_t failures;
  atomic_uint_fast64_t dropped;
  struct stripe *stripes;        /* OBJECT scope, and every hybrid monitor */
  struct vk_model vk;            /* the compiled model, mapped */
  uint8_t hybrid;                /* a whole vk_inst per instance: VK_HA or VK_LTL */
  uint8_t ltl;                   /* VK_LTL: word is a set of Büchi states */
};

/* Every monitor that saw an event (a lock-free list). */
extern _Atomic(struct vg_monitor_rt *) vg_monitors;

/* One registration per monitor and thread (its TLS slot). */
struct reg {
  struct vigil_monitor_tls *tls;
  struct vg_monitor_rt *rt;
  struct reg *next, *prev;  /* every live registration */
  struct reg *thread_next;  /* this thread's */
};

/* Every live registration, under vg_monitor_live_lock. */
extern uint32_t vg_monitor_live_lock;
extern struct reg *vg_monitor_live;

/* ---- the event paths' shared steps (monitor.c) ------------------------------------- */

/* The runtime is working on this thread: monitor events raised meanwhile
 * (a handler, an interposed malloc) are ignored.  The timer thread keeps
 * it set for its whole life. */
extern _Thread_local int vg_monitor_busy;

/* TLS_SLOW: the slot's inline path is off for good (vigil/monitor.h,
 * VIGIL_MONITOR_PARKED): VIGIL_FAST_PATH=0, no registration, thread exit. */
enum { TLS_REGISTERED = 1, TLS_SLOW = 2 };

/* Every registered TLS slot of this thread parked (the inline path off), or
 * unparked but for the slots that are off for good.  Around any runtime
 * code that may call monitored functions: allocation, reports, hybrid
 * steps (monitor.c says why). */
void vg_monitor_park(void);
void vg_monitor_unpark(void);

/* The first event of a monitor on this thread (or ever): bookkeeping and
 * this event's count; 0 when the event must be ignored. */
int vg_monitor_first_event(struct vigil_monitor *m, struct vigil_monitor_tls *t);

/* The guard and this thread's event count.  0: ignore the event. */
static inline __attribute__((always_inline)) int vg_monitor_enter(struct vigil_monitor *m,
                                                                  struct vigil_monitor_tls *t) {
  if (vg_monitor_busy)
    return 0;
  vg_monitor_busy = 1;
  if (__builtin_expect(t->flags & TLS_REGISTERED, 1)) {
    __atomic_store_n(&t->events, t->events + 1, __ATOMIC_RELAXED);
    return 1;
  }
  if (vg_monitor_first_event(m, t))
    return 1;
  vg_monitor_busy = 0;
  return 0;
}

/* ---- hybrid automata (monitor_hybrid.c, monitor_timer.c) -------------------------------- */

/* Every invariant of rt's instances that expired by `now`: fired (each at
 * its own expiry, as the reference does) and reported in the order of
 * their expiries.  Returns the earliest expiry still armed (VK_NEVER). */
uint64_t vg_monitor_expire(struct vg_monitor_rt *rt, uint64_t now);
/* The thread `tid` exits (or the program, for `when` "program exit"):
 * its instance of a per-thread hybrid monitor leaves the table (a thread
 * id is reused), reported if check_exit and not final. */
void vg_monitor_hybrid_thread_exit(struct vg_monitor_rt *rt, uint64_t tid, const char *when);
/* The clock hybrid monitors read: CLOCK_MONOTONIC, or the manual time. */
uint64_t vg_monitor_now(void);
int vg_monitor_manual_clock(void);

/* An expiry earlier than any the timer thread knows of was armed: start
 * the thread if need be, and make it wake by then. */
void vg_monitor_timer_arm(uint64_t expiry);
/* Whether the timer thread runs (an armed expiry starts it otherwise). */
int vg_monitor_timer_running(void);
/* Program exit: stop the timer thread after a last expiry scan. */
void vg_monitor_timer_stop(void);
/* One expiry scan of every hybrid monitor at `now`; the earliest expiry
 * still armed. */
uint64_t vg_monitor_expire_all(uint64_t now);

/* ---- reports ---------------------------------------------------------------------- */

enum reason { R_INVALID, R_NOT_FINAL, R_NOT_FINAL_AT_EXIT, R_GUARD, R_INVARIANT, R_LTL };

struct violation {
  enum reason reason;
  const struct vigil_monitor_rule *rule; /* NULL at exit, and for a timer */
  uint32_t state;   /* R_LTL: the set of Büchi states it was in */
  int has_key;
  uint64_t key;
  const char *when; /* rule NULL: "thread exit" / "program exit" / "time passed" */
  uint32_t guard;   /* R_GUARD: the compiled model's guard */
  uint64_t at;      /* R_INVARIANT: when it expired (ns, the monitors' clock) */
};

void vg_monitor_report(struct vg_monitor_rt *rt, const struct violation *x);
const char *vg_monitor_basename(const char *p);

#endif
