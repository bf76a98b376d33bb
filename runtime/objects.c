/*
 * objects.c — struct automata (TESLA_STRUCT_AUTOMATON, VIGIL_KIND_STRUCT).
 *
 * One instance per object, the object being the value of the event's KEY
 * slot(s).  The first bound's event on an object creates its instance and
 * takes the site at once (the compiled pattern is SITE · body); the second
 * bound's event checks it (phase 2 not FINAL: missing-after-site) and
 * destroys it.  Other events step the instance of their object (strict:
 * no transition is unexpected-event); a symbol with no KEY slot steps every
 * live instance; events on objects without an instance are ignored.
 * Global locality: one table behind a mutex; per-thread: a thread-local
 * table, freed when the thread exits.  Memory is malloc'd: instances come
 * and go with objects, unlike the per-bound state of inline assertions.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

enum { SLOT_EMPTY = 0, SLOT_LIVE = 1, SLOT_TOMB = 2 };

struct vg_object {
  const struct vigil_assertion *a;
  uint64_t key[VIGIL_MAX_VALUES];
  uint64_t ever;
  uint16_t state;
  uint8_t used;     /* SLOT_* */
  uint8_t failed;   /* reported: quiet until destroyed */
};

struct vg_objects {
  struct vg_object *slots;
  size_t cap, live, tombs;
};

static struct vg_objects global_table;
static pthread_mutex_t global_lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local struct vg_objects thread_table;
static pthread_key_t exit_key;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;

static void thread_exit(void *p) {
  (void)p;
  free(thread_table.slots);
  memset(&thread_table, 0, sizeof thread_table);
}
static void make_key(void) { pthread_key_create(&exit_key, thread_exit); }

/* The KEY slots' values, in slot order; returns how many. */
static unsigned key_of(const struct vigil_assertion *a, unsigned s,
                       const uint64_t *values, uint64_t *key) {
  const struct vigil_event_desc *ev = &a->symbols[s];
  unsigned n = 0;
  memset(key, 0, sizeof(uint64_t) * VIGIL_MAX_VALUES);
  for (unsigned i = 0; values && i < ev->nvalues; i++)
    if (ev->values[i].kind == VIGIL_VAL_KEY)
      key[n++] = values[i];
  return n;
}

static size_t hash(const struct vigil_assertion *a, const uint64_t *key) {
  uint64_t h = (uint64_t)(uintptr_t)a * 0x9e3779b97f4a7c15ull;
  for (unsigned i = 0; i < VIGIL_MAX_VALUES; i++) {
    h ^= key[i];
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 32;
  }
  return (size_t)h;
}

static struct vg_object *find(struct vg_objects *t, const struct vigil_assertion *a,
                              const uint64_t *key) {
  if (!t->cap)
    return NULL;
  for (size_t i = hash(a, key) & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
    struct vg_object *o = &t->slots[i];
    if (o->used == SLOT_EMPTY)
      return NULL;
    if (o->used == SLOT_LIVE && o->a == a &&
        !memcmp(o->key, key, sizeof o->key))
      return o;
  }
}

static int rehash(struct vg_objects *t) {
  size_t ncap = t->cap ? t->cap : 64;
  while ((t->live + 1) * 2 > ncap)
    ncap *= 2;
  struct vg_object *n = calloc(ncap, sizeof *n);
  if (!n)
    return -1;
  for (size_t i = 0; i < t->cap; i++)
    if (t->slots[i].used == SLOT_LIVE) {
      size_t j = hash(t->slots[i].a, t->slots[i].key) & (ncap - 1);
      while (n[j].used)
        j = (j + 1) & (ncap - 1);
      n[j] = t->slots[i];
    }
  free(t->slots);
  t->slots = n;
  t->cap = ncap;
  t->tombs = 0;
  return 0;
}

static struct vg_object *insert(struct vg_objects *t, const struct vigil_assertion *a,
                                const uint64_t *key) {
  if ((t->live + t->tombs + 1) * 2 > t->cap && rehash(t) < 0)
    return NULL;
  size_t i = hash(a, key) & (t->cap - 1);
  while (t->slots[i].used == SLOT_LIVE)
    i = (i + 1) & (t->cap - 1);
  struct vg_object *o = &t->slots[i];
  if (o->used == SLOT_TOMB)
    t->tombs--;
  memset(o, 0, sizeof *o);
  o->a = a;
  memcpy(o->key, key, sizeof o->key);
  o->used = SLOT_LIVE;
  t->live++;
  return o;
}

static void destroy(struct vg_objects *t, struct vg_object *o) {
  o->used = SLOT_TOMB;
  t->live--;
  t->tombs++;
}

static void fail(struct vigil_assertion *a, struct vg_object *o, struct vg_failure *f) {
  o->failed = 1;
  f->has_key = 1;
  f->key = o->key[0];
  const struct vg_failure *one = f;
  vg_report(a, NULL, &one, 1);
}

static void step(struct vigil_assertion *a, struct vg_object *o, unsigned s,
                 const uint64_t *values) {
  if (o->failed)
    return;
  struct vg_cand c = {.state = o->state, .ever = o->ever};
  struct vg_failure f;
  if (vg_cand_step(a, 0, &c, s, values, &f) == VG_STEP_FAIL) {
    fail(a, o, &f);
    return;
  }
  o->state = c.state;
  o->ever = c.ever;
}

static void finish(struct vigil_assertion *a, struct vg_objects *t, struct vg_object *o) {
  struct vg_cand c = {.state = o->state, .ever = o->ever};
  struct vg_failure f;
  if (!o->failed && vg_cand_end(a, 0, &c, &f))
    fail(a, o, &f);
  destroy(t, o);
}

static void create(struct vigil_assertion *a, struct vg_objects *t, const uint64_t *key) {
  struct vg_object *o = find(t, a, key);
  if (o)
    finish(a, t, o); /* created again: the old life ends here */
  o = insert(t, a, key);
  if (!o) {
    vg_stats_dropped(a);
    return;
  }
  step(a, o, VIGIL_SYM_SITE, NULL);
}

/* Every live instance of `a`: a symbol without a KEY slot. */
static void each(struct vigil_assertion *a, struct vg_objects *t, unsigned s,
                 const uint64_t *values) {
  for (size_t i = 0; i < t->cap; i++) {
    struct vg_object *o = &t->slots[i];
    if (o->used != SLOT_LIVE || o->a != a)
      continue;
    if (s == VIGIL_SYM_END)
      finish(a, t, o);
    else
      step(a, o, s, values);
  }
}

static void dispatch(struct vigil_assertion *a, struct vg_objects *t, unsigned s,
                     const uint64_t *values) {
  uint64_t key[VIGIL_MAX_VALUES];
  unsigned nkey = key_of(a, s, values, key);
  if (s == VIGIL_SYM_START) {
    if (nkey)
      create(a, t, key);
    return;
  }
  if (s == VIGIL_SYM_SITE)
    return;
  if (!nkey) {
    each(a, t, s, values);
    return;
  }
  struct vg_object *o = find(t, a, key);
  if (!o)
    return; /* no instance for this object: not ours */
  if (s == VIGIL_SYM_END)
    finish(a, t, o);
  else
    step(a, o, s, values);
}

void vg_objects_event(struct vigil_assertion *a, unsigned s, const uint64_t *values) {
  if (a->kind != VIGIL_KIND_STRUCT || s >= a->nsymbols || a->nalternatives < 1)
    return;
  if (a->locality == VIGIL_GLOBAL) {
    pthread_mutex_lock(&global_lock);
    dispatch(a, &global_table, s, values);
    pthread_mutex_unlock(&global_lock);
    return;
  }
  if (!thread_table.cap) {
    pthread_once(&exit_once, make_key);
    pthread_setspecific(exit_key, (void *)1);
  }
  dispatch(a, &thread_table, s, values);
}
