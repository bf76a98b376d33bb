/*
 * monitor_table.c — the per-object table's slow paths: a new slot (the
 * stripe grows by doubling) and the removal of one.  The lookup, on every
 * event, is inline in monitor_internal.h; these run when an instance
 * starts or ends, and take the slot size as a parameter so that plain
 * (state word) and hybrid (whole instance) tables share them.
 *
 * Each stripe is its own open-addressing table (linear probing,
 * backward-shift deletion, doubling at 3/4 full) under the stripe's spin
 * lock, which the caller holds.  Every table together stays under
 * VIGIL_MEMORY_LIMIT.
 */
#include <stdlib.h>
#include <string.h>

#include "monitor_internal.h"

extern size_t vg_memory_limit;
static atomic_size_t table_bytes;

static int grow(struct stripe *st, size_t esz) {
  uint32_t cap = st->slots ? (st->mask + 1) * 2 : 16;
  size_t bytes = (size_t)cap * esz;
  if (atomic_fetch_add(&table_bytes, bytes) + bytes > vg_memory_limit) {
    atomic_fetch_sub(&table_bytes, bytes);
    return -1;
  }
  vg_monitor_park(); /* calloc and free may be the program's, monitored */
  void *n = calloc(cap, esz);
  if (!n) {
    vg_monitor_unpark();
    atomic_fetch_sub(&table_bytes, bytes);
    return -1;
  }
  struct stripe old = *st;
  st->slots = n;
  st->mask = cap - 1;
  for (uint32_t i = 0; old.slots && i <= old.mask; i++) {
    struct entry *e = slot_at(&old, i, esz);
    if (!e->state)
      continue;
    uint32_t j = home(mix(e->key), st->mask);
    while (slot_at(st, j, esz)->state)
      j = (j + 1) & st->mask;
    memcpy(slot_at(st, j, esz), e, esz);
  }
  if (old.slots) {
    free(old.slots);
    atomic_fetch_sub(&table_bytes, (size_t)(old.mask + 1) * esz);
  }
  vg_monitor_unpark();
  return 0;
}

struct entry *vg_table_insert(struct stripe *st, uint64_t key, uint64_t h, size_t esz) {
  if (!st->slots || (st->count + 1) * 4 > (st->mask + 1) * 3)
    if (grow(st, esz))
      return NULL;
  uint32_t i = home(h, st->mask);
  while (slot_at(st, i, esz)->state)
    i = (i + 1) & st->mask;
  struct entry *e = slot_at(st, i, esz);
  memset(e, 0, esz);
  e->key = key;
  st->count++;
  return e;
}

/* Linear probing's backward-shift deletion: no tombstones. */
void vg_table_erase(struct stripe *st, struct entry *e, size_t esz) {
  uint32_t i = (uint32_t)(((char *)e - (char *)st->slots) / esz);
  st->count--;
  for (uint32_t j = (i + 1) & st->mask;; j = (j + 1) & st->mask) {
    struct entry *n = slot_at(st, j, esz);
    if (!n->state)
      break;
    uint32_t h = home(mix(n->key), st->mask);
    /* move n into the hole at i unless its home lies cyclically in (i, j] */
    if (((j - h) & st->mask) >= ((j - i) & st->mask)) {
      memcpy(slot_at(st, i, esz), n, esz);
      i = j;
    }
  }
  memset(slot_at(st, i, esz), 0, esz);
}
