/*
 * store.c — temporal stores of non-static automata (dissertation §4.2.2).
 *
 * Before the site an occurrence's relevance is unknown, so it is recorded
 * with the values of its captured slots (its key).  Two stores, selected by
 * VIGIL_ALGORITHM:
 *
 *  tags     (Algorithm 3.1, per-event temporal tagging): an open-addressing
 *           hash table from (event, key) to the timestamps of the two newest
 *           occurrences.  Where the dissertation kept a 64-epoch bit string
 *           per key, which overflows after 64 epochs, we keep two exact
 *           timestamps: the walk in engine.c stops at the second occurrence
 *           of any event (an event appears at most once on a path), so the
 *           two newest occurrences are all it can ever consume.  Memory is
 *           O(distinct keys), repeated identical events coalesce.
 *
 *  history  (Algorithm 3.2, linearised temporal history): every occurrence
 *           in order, in a growable array used as a ring once it reaches
 *           the store limit (then the oldest are lost and a walk that needs
 *           them drops the instance, counted, rather than guess).
 *
 * Both are cleared lazily: an occurrence belongs to the bound generation the
 * store was last written in; a store from an older generation is emptied on
 * its next write.  Memory comes from vg_alloc at warm-up and is reused.
 */
#include <string.h>

#include "internal.h"

struct vg_tag {
  uint64_t last, prev; /* timestamps of the newest two occurrences */
  uint8_t event;
  uint8_t used;
  uint8_t reserved[6];
  uint64_t key[VIGIL_MAX_VALUES];
};

struct vg_store {
  uint64_t gen;
  int global;
  /* tags */
  uint32_t cap, count;
  struct vg_tag *tags;
  /* history */
  uint32_t hcap, hlen, hhead, truncated;
  struct vg_occurrence *hist;
};

static uint64_t hash_key(uint8_t event, const uint64_t *key) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ event;
  for (unsigned i = 0; i < VIGIL_MAX_VALUES; i++) {
    h ^= key[i];
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 32;
  }
  return h;
}

/* Non-precise mode (§4.2.6, VIGIL_PRECISE=0): a key is reduced to one
 * 64-bit hash of its words, so two different value tuples with the same
 * hash are taken for one another (false passes or failures, rare with a
 * good mix); stores compare one word instead of VIGIL_MAX_VALUES. */
static void fold_key(uint64_t *key) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned i = 0; i < VIGIL_MAX_VALUES; i++) {
    h ^= key[i] + 0x9e3779b97f4a7c15ull * (i + 1);
    h *= 0x100000001b3ull;
    h ^= h >> 29;
  }
  memset(key, 0, sizeof(uint64_t) * VIGIL_MAX_VALUES);
  key[0] = h;
}

void vg_key_observed(const struct vigil_event_desc *ev, const uint64_t *values,
                     uint64_t *key) {
  memset(key, 0, sizeof(uint64_t) * VIGIL_MAX_VALUES);
  for (unsigned i = 0; i < ev->nvalues && i < VIGIL_MAX_VALUES; i++)
    if (ev->values[i].kind == VIGIL_VAL_CAPTURE)
      key[i] = values[i];
  if (!vg_config.precise)
    fold_key(key);
}

void vg_key_expected(const struct vigil_event_desc *ev, const uint64_t *captures,
                     uint64_t *key) {
  memset(key, 0, sizeof(uint64_t) * VIGIL_MAX_VALUES);
  for (unsigned i = 0; i < ev->nvalues && i < VIGIL_MAX_VALUES; i++)
    if (ev->values[i].kind == VIGIL_VAL_CAPTURE && captures)
      key[i] = captures[ev->values[i].capture];
  if (!vg_config.precise)
    fold_key(key);
}

static struct vg_tag *tag_find(struct vg_store *s, uint8_t event,
                               const uint64_t *key, int insert) {
  if (!s->cap)
    return NULL;
  uint32_t mask = s->cap - 1;
  for (uint32_t i = (uint32_t)hash_key(event, key) & mask;; i = (i + 1) & mask) {
    struct vg_tag *t = &s->tags[i];
    if (!t->used) {
      if (!insert)
        return NULL;
      t->used = 1;
      t->event = event;
      t->last = t->prev = 0;
      memcpy(t->key, key, sizeof t->key);
      s->count++;
      return t;
    }
    if (t->event == event && memcmp(t->key, key, sizeof t->key) == 0)
      return t;
  }
}

static int tags_grow(struct vg_store *s) {
  uint32_t ncap = s->cap ? s->cap * 2 : 16;
  if (ncap > vg_config.store_limit)
    return -1;
  struct vg_tag *old = s->tags;
  uint32_t ocap = s->cap;
  struct vg_tag *nt = vg_alloc(sizeof(struct vg_tag) * ncap, s->global);
  if (!nt)
    return -1;
  s->tags = nt;
  s->cap = ncap;
  s->count = 0;
  for (uint32_t i = 0; i < ocap; i++)
    if (old[i].used) {
      struct vg_tag *t = tag_find(s, old[i].event, old[i].key, 1);
      t->last = old[i].last;
      t->prev = old[i].prev;
    }
  /* `old` stays with the thread's registry and is released at thread exit */
  return 0;
}

static int history_grow(struct vg_store *s) {
  uint32_t ncap = s->hcap ? s->hcap * 2 : 64;
  if (ncap > vg_config.store_limit)
    return -1;
  struct vg_occurrence *n = vg_alloc(sizeof(struct vg_occurrence) * ncap, s->global);
  if (!n)
    return -1;
  for (uint32_t i = 0; i < s->hlen; i++)
    n[i] = s->hist[(s->hhead + i) % (s->hcap ? s->hcap : 1)];
  s->hist = n;
  s->hcap = ncap;
  s->hhead = 0;
  return 0;
}

int vg_store_record(struct vg_alt *alt, int global, uint64_t gen,
                    uint8_t event, uint64_t ts, const uint64_t *key) {
  struct vg_store *s = alt->store;
  if (!s) {
    /* stores of global instances must outlive the thread that made them */
    s = vg_alloc(sizeof *s, global);
    if (!s)
      return -1;
    s->global = global;
    alt->store = s;
  }
  if (s->gen != gen) {
    if (s->count)
      memset(s->tags, 0, sizeof(struct vg_tag) * s->cap);
    s->count = 0;
    s->hlen = s->hhead = s->truncated = 0;
    s->gen = gen;
  }
  if (vg_config.algorithm == VG_TAGS) {
    if ((s->count + 1) * 4 > s->cap * 3 && tags_grow(s) < 0)
      return -1;
    struct vg_tag *t = tag_find(s, event, key, 1);
    t->prev = t->last;
    t->last = ts;
    return 0;
  }
  if (s->hlen == s->hcap && history_grow(s) < 0) {
    if (!s->hcap)
      return -1;
    /* full at the limit: overwrite the oldest */
    s->hhead = (s->hhead + 1) % s->hcap;
    s->hlen--;
    s->truncated = 1;
  }
  struct vg_occurrence *o = &s->hist[(s->hhead + s->hlen) % s->hcap];
  o->ts = ts;
  o->event = event;
  memcpy(o->vals, key, sizeof o->vals);
  s->hlen++;
  return 0;
}

struct occ {
  uint64_t ts;
  uint8_t event;
};

int vg_store_walk(struct vg_alt *alt, const struct vigil_automaton *au,
                  uint64_t gen, uint64_t after,
                  const uint64_t (*keys)[VIGIL_MAX_VALUES], uint64_t interest,
                  vg_step_fn step, void *ctx) {
  struct vg_store *s = alt->store;
  if (!s || s->gen != gen)
    return 0;
  if (vg_config.algorithm == VG_TAGS) {
    struct occ occ[2 * VIGIL_MAX_EVENTS];
    unsigned n = 0;
    for (unsigned e = 0; e < au->nevents; e++) {
      if (!(interest & (1ull << e)))
        continue;
      struct vg_tag *t = tag_find(s, (uint8_t)e, keys[e], 0);
      if (!t)
        continue;
      if (t->last > after)
        occ[n++] = (struct occ){t->last, (uint8_t)e};
      if (t->prev > after)
        occ[n++] = (struct occ){t->prev, (uint8_t)e};
    }
    /* newest first; n is small (two per event) */
    for (unsigned i = 1; i < n; i++)
      for (unsigned j = i; j > 0 && occ[j].ts > occ[j - 1].ts; j--) {
        struct occ tmp = occ[j];
        occ[j] = occ[j - 1];
        occ[j - 1] = tmp;
      }
    for (unsigned i = 0; i < n; i++)
      if (!step(ctx, occ[i].event, occ[i].ts))
        return 0;
    return 0;
  }
  for (uint32_t i = s->hlen; i-- > 0;) {
    const struct vg_occurrence *o = &s->hist[(s->hhead + i) % s->hcap];
    if (o->ts <= after)
      return 0;
    if (!(interest & (1ull << o->event)))
      continue;
    if (memcmp(o->vals, keys[o->event], sizeof o->vals) != 0)
      continue;
    if (!step(ctx, o->event, o->ts))
      return 0;
  }
  return s->truncated ? -1 : 0;
}

int vg_store_seen(struct vg_alt *alt, uint64_t gen, uint64_t after,
                  uint8_t event, const uint64_t *key) {
  struct vg_store *s = alt->store;
  if (!s || s->gen != gen)
    return 0;
  if (vg_config.algorithm == VG_TAGS) {
    struct vg_tag *t = tag_find(s, event, key, 0);
    return t && t->last > after;
  }
  for (uint32_t i = s->hlen; i-- > 0;) {
    const struct vg_occurrence *o = &s->hist[(s->hhead + i) % s->hcap];
    if (o->ts <= after)
      return 0;
    if (o->event == event && memcmp(o->vals, key, sizeof o->vals) == 0)
      return 1;
  }
  return 0;
}
