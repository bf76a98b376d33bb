/*
 * atomic_settle.c — an AR's second access when it is a read
 * (__vigil_ar_end_read, include/vigil/atomic.h): the one window a checked
 * write's undo leaves open.
 *
 * A checked write is an exchange followed by a second look at the filter
 * (atomic_undo.c).  When an AR began between the writer's first check and
 * its exchange, and the AR's first access came before the write, the
 * writer undoes the write with a compare-and-swap a few hundred
 * instructions later.  In between, the AR's owner can make its second
 * read and see the new value: the RWR (and WWR) the undo was for, not
 * prevented (measured on mysql-3596: one crash in 30 runs, `writes_undone
 * 1` in the failing run).  So the runtime makes the second read itself
 * and compares it with the value the AR left (its first read's, or its
 * write's): when they differ, it waits a little for the undo.
 *
 * How long: the writer is running between two instructions of its own
 * slow path, so a few microseconds cover it unless it is preempted there.
 * The wait stops at once when the slot records a write that will not be
 * undone (the end then reports the violation).  A value changed by the
 * owner itself through code the pass does not see (a library's memset
 * between A and B) costs the whole wait, about 20 us, and is counted as
 * `reads_unsettled`; the owner's instrumented writes update the expected
 * value (vg_atomic_own_write) and cost nothing.
 */
#define _GNU_SOURCE
#include <sched.h>

#include "atomic_internal.h"

#define SETTLE_SPINS 256
#define SETTLE_YIELDS 16

void vg_atomic_own_write(struct vg_ar_thread *t, uintptr_t p, uint32_t len, uint64_t v) {
  for (uint32_t i = 0; i < t->n; i++) {
    struct vg_ar_slot *s = t->held_slot[i];
    if (s->addr == p && s->len == len)
      s->saved = v;
  }
}

static inline void relax(unsigned round) {
  if (round < SETTLE_SPINS) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#else
    atomic_signal_fence(memory_order_seq_cst);
#endif
  } else {
    sched_yield(); /* the writer may be preempted on this core */
  }
}

uint64_t vg_atomic_settle(struct vg_ar_slot *s, uintptr_t p, uint32_t len, uint64_t v) {
  for (unsigned round = 0; round < SETTLE_SPINS + SETTLE_YIELDS; round++) {
    uint32_t st = atomic_load_explicit(&s->state, memory_order_acquire);
    if ((st & VG_SLOT_REMOTE) && s->remote.held != VG_HELD_YES)
      break; /* a write that stays: the end reports it */
    relax(round);
    v = vg_load_n(p, len);
    if (v == s->saved) {
      vg_atomic_count(VG_AC_SETTLED, 1);
      return v;
    }
  }
  vg_atomic_count(VG_AC_UNSETTLED, 1);
  return v;
}
