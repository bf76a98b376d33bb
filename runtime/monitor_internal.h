/*
 * monitor_internal.h — what the in-process monitors' runtime shares between
 * its files: monitor.c (instances, transitions, threads, exits),
 * monitor_report.c (violation reports) and monitor_stats.c (counters).
 * The event path lives in monitor.c alone, so that its helpers inline.
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

/* ---- reports ---------------------------------------------------------------------- */

enum reason { R_INVALID, R_NOT_FINAL, R_NOT_FINAL_AT_EXIT };

struct violation {
  enum reason reason;
  const struct vigil_monitor_rule *rule; /* NULL at exit */
  uint32_t state;
  int has_key;
  uint64_t key;
  const char *when; /* at exit: "thread exit" / "program exit" */
};

void vg_monitor_report(struct vg_monitor_rt *rt, const struct violation *x);
const char *vg_monitor_basename(const char *p);

#endif
