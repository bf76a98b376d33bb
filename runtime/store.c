/*
 * store.c — temporal stores of recording alternatives (docs/engine.md).
 *
 * Before the site an occurrence's relevance is unknown (the captured values
 * are not), so it is recorded; the site replays those carrying its tuple.
 *
 *  history  every occurrence since the window began, in order, with all its
 *           value words (free variables need them).  A ring once it reaches
 *           VIGIL_STORE_LIMIT: the oldest are lost, and `lost` remembers
 *           the newest lost timestamp so a replay knows what it cannot see.
 *  tags     (VIGIL_AF_TAGS alternatives: every Pre symbol occurs at most
 *           once in Pre) the two newest occurrences per (symbol, CAPTURE
 *           slots): an open-addressing table, O(distinct keys) memory.  The
 *           replay merges them by timestamp; an entry that had more than
 *           two occurrences makes the list exact only from its older kept
 *           one on (replay.c decides whether that suffices).
 *
 *           A window's first VG_LOG_MAX occurrences go to a plain log in
 *           order, as history would keep them; only a longer window is
 *           folded into the table.  Most windows are short: the log makes
 *           recording an append and the replay a scan with no sort, and
 *           its answer is exact where the table's may not be.
 *
 * Both are cleared lazily (a generation per window) and reuse their memory.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct vg_tag {
  uint64_t gen;          /* valid when equal to the store's gen */
  uint64_t last, prev;   /* timestamps of the two newest occurrences */
  uint64_t count;        /* occurrences in this window */
  uint8_t sym;
  uint8_t reserved[7];
  uint64_t key[VIGIL_MAX_VALUES];
};

struct vg_store {
  uint64_t gen;
  int global;
  uint64_t lost;         /* newest timestamp not kept (0: none) */
  /* tags */
  uint32_t cap, count;
  struct vg_tag *tags;
  /* history */
  uint32_t hcap, hlen, hhead;
  struct vg_occurrence *hist;
  /* tags: the window's first occurrences, before folding into the table */
  uint32_t llen, folded;
  struct vg_occurrence *log;
  /* collect()'s result, reused */
  size_t scap;
  struct vg_occurrence *scratch;
};

void vg_store_reset(struct vg_store *s) {
  if (!s)
    return;
  s->gen++;
  s->count = 0;
  s->hlen = s->hhead = 0;
  s->llen = s->folded = 0;
  s->lost = 0;
}

#define VG_LOG_MAX 32u

/* Trailing zero words (slots that are not captured, or past the event's
 * values) are not hashed: usually one or two words are. */
static uint64_t hash_key(unsigned sym, const uint64_t *key) {
  unsigned n = VIGIL_MAX_VALUES;
  while (n > 0 && !key[n - 1])
    n--;
  uint64_t h = 0x9e3779b97f4a7c15ull ^ sym;
  for (unsigned i = 0; i < n; i++) {
    h ^= key[i];
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 32;
  }
  return h;
}

static struct vg_tag *tag_slot(struct vg_store *s, unsigned sym, const uint64_t *key) {
  uint32_t mask = s->cap - 1;
  for (uint32_t i = (uint32_t)hash_key(sym, key) & mask;; i = (i + 1) & mask) {
    struct vg_tag *t = &s->tags[i];
    if (t->gen != s->gen || (t->sym == sym && !memcmp(t->key, key, sizeof t->key)))
      return t;
  }
}

static int tags_grow(struct vg_store *s) {
  uint32_t ncap = s->cap ? s->cap * 2 : 16;
  if (ncap > vg_config.store_limit && s->cap)
    return -1;
  struct vg_tag *old = s->tags;
  uint32_t ocap = s->cap;
  struct vg_tag *nt = vg_alloc(sizeof(struct vg_tag) * ncap, s->global);
  if (!nt)
    return -1;
  s->tags = nt;
  s->cap = ncap;
  for (uint32_t i = 0; i < ocap; i++)
    if (old[i].gen == s->gen)
      *tag_slot(s, old[i].sym, old[i].key) = old[i];
  /* `old` stays with the thread's registry and is released at thread exit */
  return 0;
}

static int tags_record(struct vg_store *s, const uint64_t *key, unsigned sym,
                       uint64_t ts) {
  if ((s->count + 1) * 2 > s->cap && tags_grow(s) < 0 && s->count + 1 >= s->cap) {
    s->lost = ts; /* full: this occurrence is not kept */
    return 0;
  }
  struct vg_tag *t = tag_slot(s, sym, key);
  if (t->gen != s->gen) {
    memset(t, 0, sizeof *t);
    t->gen = s->gen;
    t->sym = (uint8_t)sym;
    memcpy(t->key, key, sizeof t->key);
    s->count++;
  }
  t->prev = t->last;
  t->last = ts;
  t->count++;
  return 0;
}

static int history_record(struct vg_store *s, const struct vigil_event_desc *ev,
                          unsigned sym, uint64_t ts, const uint64_t *values) {
  if (s->hlen == s->hcap) {
    uint32_t ncap = s->hcap ? s->hcap * 2 : 16;
    if (ncap > vg_config.store_limit && !s->hcap)
      ncap = vg_config.store_limit ? (uint32_t)vg_config.store_limit : 1;
    if (ncap > vg_config.store_limit && s->hcap) {
      /* a ring: the oldest occurrence makes room */
      s->lost = s->hist[s->hhead].ts;
      s->hhead = (s->hhead + 1) % s->hcap;
      s->hlen--;
    } else {
      struct vg_occurrence *nh = vg_alloc(sizeof *nh * ncap, s->global);
      if (!nh)
        return -1;
      for (uint32_t i = 0; i < s->hlen; i++)
        nh[i] = s->hist[(s->hhead + i) % s->hcap];
      s->hist = nh;
      s->hcap = ncap;
      s->hhead = 0;
    }
  }
  struct vg_occurrence *o = &s->hist[(s->hhead + s->hlen++) % s->hcap];
  memset(o, 0, sizeof *o);
  o->ts = ts;
  o->sym = (uint8_t)sym;
  memcpy(o->vals, values, sizeof(uint64_t) * ev->nvalues);
  return 0;
}

/* Tags mode: the log while it has room, then the table.  Both keep the
 * table's key (the CAPTURE slots, the others zero), so a replay reads the
 * same words whether or not the window was folded. */
static void key_of(const struct vigil_event_desc *ev, const uint64_t *values,
                   uint64_t *key) {
  memset(key, 0, sizeof(uint64_t) * VIGIL_MAX_VALUES);
  for (unsigned i = 0; i < ev->nvalues; i++)
    if (ev->values[i].kind == VIGIL_VAL_CAPTURE)
      key[i] = values[i];
}

static int tags_or_log(struct vg_store *s, const struct vigil_event_desc *ev,
                       unsigned sym, uint64_t ts, const uint64_t *values) {
  if (!s->folded && s->log && s->llen < VG_LOG_MAX && s->llen < vg_config.store_limit) {
    struct vg_occurrence *o = &s->log[s->llen++];
    o->ts = ts;
    o->sym = (uint8_t)sym;
    key_of(ev, values, o->vals);
    return 0;
  }
  uint64_t key[VIGIL_MAX_VALUES];
  key_of(ev, values, key);
  if (s->folded)
    return tags_record(s, key, sym, ts);
  if (!s->log) {
    if (!(s->log = vg_alloc(sizeof *s->log * VG_LOG_MAX, s->global)))
      return -1;
    return tags_or_log(s, ev, sym, ts, values);
  }
  s->folded = 1;
  for (uint32_t i = 0; i < s->llen; i++)
    if (tags_record(s, s->log[i].vals, s->log[i].sym, s->log[i].ts) < 0)
      return -1;
  return tags_record(s, key, sym, ts);
}

int vg_store_record(struct vg_altx *x, int tags, const struct vigil_event_desc *ev,
                    unsigned sym, uint64_t ts, const uint64_t *values) {
  if (!x->store) {
    x->store = vg_alloc(sizeof *x->store, x->global);
    if (!x->store)
      return -1;
    x->store->global = x->global;
    x->store->gen = 1;
  }
  static const uint64_t none[VIGIL_MAX_VALUES];
  if (!values)
    values = none;
  return tags ? tags_or_log(x->store, ev, sym, ts, values)
              : history_record(x->store, ev, sym, ts, values);
}

static int push(struct vg_store *s, size_t *n, const struct vg_occurrence *o) {
  if (*n == s->scap) {
    size_t ncap = s->scap ? s->scap * 2 : 16;
    struct vg_occurrence *ns = vg_alloc(sizeof *ns * ncap, s->global);
    if (!ns)
      return -1;
    if (*n)
      memcpy(ns, s->scratch, sizeof *ns * *n);
    s->scratch = ns;
    s->scap = ncap;
  }
  s->scratch[(*n)++] = *o;
  return 0;
}

static int by_ts(const void *l, const void *r) {
  uint64_t a = ((const struct vg_occurrence *)l)->ts;
  uint64_t b = ((const struct vg_occurrence *)r)->ts;
  return a < b ? -1 : a > b;
}

static int tags_collect(struct vg_store *s, uint64_t after, vg_keep_fn keep,
                        void *ctx, size_t *n, uint64_t *exact_from) {
  for (uint32_t i = 0; i < s->cap; i++) {
    struct vg_tag *t = &s->tags[i];
    if (t->gen != s->gen || t->last <= after)
      continue;
    struct vg_occurrence o = {.sym = t->sym};
    memcpy(o.vals, t->key, sizeof o.vals);
    if (!keep(ctx, &o))
      continue;
    if (t->count > 2 && t->prev > after && t->prev > *exact_from)
      *exact_from = t->prev; /* older occurrences of this key are gone */
    if (t->count >= 2 && t->prev > after) {
      o.ts = t->prev;
      if (push(s, n, &o) < 0)
        return -1;
    }
    o.ts = t->last;
    if (push(s, n, &o) < 0)
      return -1;
  }
  if (*n > 32) {
    qsort(s->scratch, *n, sizeof *s->scratch, by_ts);
    return 0;
  }
  /* a site usually replays a handful: insertion sort, no qsort call */
  for (size_t i = 1; i < *n; i++) {
    struct vg_occurrence o = s->scratch[i];
    size_t j = i;
    for (; j > 0 && s->scratch[j - 1].ts > o.ts; j--)
      s->scratch[j] = s->scratch[j - 1];
    s->scratch[j] = o;
  }
  return 0;
}

int vg_store_collect(struct vg_altx *x, int tags, uint64_t after, vg_keep_fn keep,
                     void *ctx, struct vg_occurrence **out, size_t *n,
                     uint64_t *exact_from) {
  struct vg_store *s = x->store;
  *n = 0;
  *exact_from = 0;
  *out = NULL;
  if (!s)
    return 0;
  if (s->lost > after)
    *exact_from = s->lost + 1;
  if (tags && !s->folded) {
    for (uint32_t i = 0; i < s->llen; i++) {
      const struct vg_occurrence *o = &s->log[i];
      if (o->ts > after && keep(ctx, o) && push(s, n, o) < 0)
        return -1;
    }
  } else if (tags) {
    if (tags_collect(s, after, keep, ctx, n, exact_from) < 0)
      return -1;
  } else {
    for (uint32_t i = 0; i < s->hlen; i++) {
      const struct vg_occurrence *o = &s->hist[(s->hhead + i) % s->hcap];
      if (o->ts > after && keep(ctx, o) && push(s, n, o) < 0)
        return -1;
    }
  }
  *out = s->scratch;
  return 0;
}
