/*
 * atomic_undo.c — the second check of a checked write (include/vigil/atomic.h):
 * the write is done (an atomic exchange, a full fence) and the filter shows
 * an AR on its bucket.  That AR may have begun after the first check, in
 * the window between the check and the store.  Was its first access A
 * before the write or after it?
 *
 *   A read  (begin_read): the slot's saved value is exactly what A read.
 *           A read of the new value came after the write: nothing to do.
 *           A read of the old value came before it: the write breaks the
 *           AR (RWR, RWW).
 *   A write (begin): saved is what A writes.  When the value the exchange
 *           replaced is that one, A came first and the write breaks the AR
 *           (WWR); otherwise A has not run yet and will overwrite it, which
 *           is serial.  (When both values are equal by chance the undo
 *           below puts back the very value A writes: harmless.)
 *
 * A broken AR gets the write recorded as its remote access, and in the
 * holding modes the write is undone (a compare-and-swap of the new value
 * back to the old one: if something else wrote in between, the write
 * stands and is counted as not undone), held until the AR ends, and made
 * again, which is the paper's undo-and-re-execute (§3.3) done by the
 * writer itself instead of a trap handler.  If another AR's A already read
 * the new value the write is not undone: that would break the AR that saw
 * it.
 *
 * What is left: the owner's B may run between the exchange and the
 * compare-and-swap (a few dozen instructions here against the whole
 * region there); it then sees the new value and the AR reports the
 * violation, not prevented.  Writes the pass cannot exchange (wider than
 * 8 bytes, unaligned) keep the first check only (docs/atomic.md).
 */
#define _GNU_SOURCE
#include <sched.h>

#include "atomic_internal.h"

#define BROKEN_MAX 8

/* A's value once the owner has it, 0 if the slot moved on meanwhile. */
static int first_value(struct vg_ar_slot *s, uint32_t gen, uint64_t *v) {
  for (unsigned spins = 0; !atomic_load_explicit(&s->saved_ready, memory_order_acquire);
       spins++) {
    if (atomic_load_explicit(&s->futex, memory_order_acquire) != gen || spins > 100000)
      return 0;
    if (spins > 64)
      sched_yield(); /* the owner is between its publication and its read */
  }
  *v = s->saved;
  return atomic_load_explicit(&s->futex, memory_order_acquire) == gen;
}

enum order { AFTER_IT, BROKEN, SAW_IT };

/* Where slot s's first access stands against this write. */
static enum order order_of(struct vg_ar_slot *s, uint32_t gen, uintptr_t p, uint32_t len,
                           uint64_t old, uint64_t value) {
  uint64_t first;
  if (s->addr != p || s->len != len)
    return BROKEN; /* another width: no value to compare, the write stands recorded */
  if (!first_value(s, gen, &first))
    return AFTER_IT;
  if (s->first_kind & VIGIL_AR_WRITE)
    return first == old ? BROKEN : AFTER_IT;
  return first == value ? SAW_IT : BROKEN;
}

struct broken {
  struct vg_ar_slot *s[BROKEN_MAX];
  uint32_t gen[BROKEN_MAX];
  int n, saw;
};

static void find_broken(struct vg_ar_thread *t, uintptr_t p, uint32_t len, uint64_t old,
                        uint64_t value, struct broken *b) {
  b->n = b->saw = 0;
  uint32_t hw = atomic_load_explicit(&vg_ar_slot_hw, memory_order_acquire);
  for (uint32_t i = 0; i < hw; i++) {
    struct vg_ar_slot *s = &vg_ar_slots[i];
    uint32_t gen = atomic_load_explicit(&s->futex, memory_order_acquire);
    uint32_t st = atomic_load_explicit(&s->state, memory_order_acquire);
    if ((st & VG_SLOT_PHASE) != VG_SLOT_ACTIVE || (st & VG_SLOT_WAITING) || s->owner == t ||
        !vg_overlaps(s->addr, s->len, p, len) || !(s->watch & VIGIL_AR_WRITE))
      continue;
    enum order o = order_of(s, gen, p, len, old, value);
    b->saw |= o == SAW_IT;
    if (o == BROKEN && b->n < BROKEN_MAX) {
      b->s[b->n] = s;
      b->gen[b->n++] = gen;
    }
  }
}

static void record(struct broken *b, uint32_t site, int hold) {
  for (int i = 0; i < b->n; i++) {
    int r = vg_slot_record(b->s[i], b->gen[i], VIGIL_AR_WRITE, 0, VG_VIA_CHECK, site, 0, 1,
                           hold ? VG_HELD_YES : VG_HELD_NO);
    if (r >= 0)
      vg_atomic_count(r ? VG_AC_REMOTES : VG_AC_REMOTE_REPEATS, 1);
  }
}

void vg_atomic_undo_write(struct vg_ar_thread *t, uintptr_t p, uint32_t len, uint32_t site,
                          uint64_t old, uint64_t value) {
  for (int round = 0; round < 4 && old != value; round++) {
    struct broken b;
    find_broken(t, p, len, old, value, &b);
    if (!b.n)
      return;
    int hold = !b.saw && vg_atomic_would_hold(b.s[0]);
    if (hold && !vg_cas_n(p, len, value, old))
      hold = 0; /* written again meanwhile: this write is no longer the last */
    vg_atomic_count(hold ? VG_AC_UNDONE : VG_AC_NOT_UNDONE,
                    vg_atomic_would_hold(b.s[0]) || b.saw);
    record(&b, site, hold);
    if (!hold)
      return;
    for (int i = 0; i < b.n; i++)
      vg_atomic_count(vg_slot_wait(b.s[i], b.gen[i]) ? VG_AC_HELD : VG_AC_TIMEOUTS, 1);
    old = vg_exchange_n(p, len, value); /* the write, made again; look once more */
  }
}
