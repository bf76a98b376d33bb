/*
 * checks.c — keyed checks and free-variable candidates.
 *
 * In guideline and conditional modes every distinct tuple of captured
 * values that reaches the site in a bound is its own check (docs/engine.md,
 * "Keyed checks"); a check follows the events whose CAPTURE slots carry its
 * tuple.  A check holds one candidate, or for alternatives with free
 * variables a bounded set of them: an event whose FREE slot names an
 * unbound variable forks a candidate that binds it (the original, which
 * takes the event for another one, stays), so the check passes when any
 * binding does (existential).  Past VG_MAX_CANDIDATES the verdict is
 * unknowable and the instance is dropped (counted), never guessed.
 */
#include <string.h>

#include "internal.h"

#define VG_MAX_CHECKS 4096u

int vg_ensure_x(struct vg_ctx *c) {
  struct vg_alt *alt = c->alt;
  if (alt->x)
    return 0;
  int global = c->a->locality == VIGIL_GLOBAL;
  struct vg_altx *x = vg_alloc(sizeof *x, global);
  if (!x)
    return -1;
  x->global = global;
  x->candcap = (c->a->alternatives[c->ai].flags & VIGIL_AF_FREE) ? VG_MAX_CANDIDATES : 1;
  alt->x = x;
  return 0;
}

void vg_alt_fail(struct vg_ctx *c, struct vg_failure *f) {
  struct vg_alt *alt = c->alt;
  alt->status |= VG_A_FAILED;
  if (c->a->nalternatives == 1) {
    const struct vg_failure *one = f;
    vg_report(c->a, c->h, &one, 1);
    return;
  }
  /* Top-level OR: decided at the end of the bound, when all are in.  This
   * failure concerns every tuple (it came before any site, or in strict
   * mode without one); a check's own failure stays in the check. */
  if (vg_ensure_x(c) < 0) {
    c->h->dropped = 1; /* no memory to keep it: the verdict is unknown */
    return;
  }
  if (!alt->x->has_failure) {
    alt->x->failure = *f;
    alt->x->has_failure = 1;
  }
}

int vg_tuple_matches(const struct vigil_assertion *a, unsigned s,
                     const uint64_t *values, const uint64_t *tuple, unsigned wild) {
  const struct vigil_event_desc *ev = &a->symbols[s];
  for (unsigned i = 0; i < ev->nvalues; i++)
    if (ev->values[i].kind == VIGIL_VAL_CAPTURE && !(wild & vg_bit(ev->values[i].index)) &&
        values[i] != tuple[ev->values[i].index])
      return 0;
  return 1;
}

struct vg_check *vg_check_find(struct vg_ctx *c, const uint64_t *tuple) {
  struct vg_alt *alt = c->alt;
  size_t bytes = sizeof(uint64_t) * c->a->ncaptures;
  for (unsigned i = 0; i < alt->nchecks; i++)
    if (!memcmp(alt->x->checks[i].tuple, tuple, bytes))
      return &alt->x->checks[i];
  return NULL;
}

static int grow_checks(struct vg_ctx *c) {
  struct vg_altx *x = c->alt->x;
  unsigned ncap = x->capchecks ? x->capchecks * 2u : 2u;
  if (ncap > VG_MAX_CHECKS)
    return -1;
  struct vg_check *n = vg_alloc(sizeof *n * ncap, x->global);
  if (!n)
    return -1;
  if (x->checks)
    memcpy(n, x->checks, sizeof *n * x->capchecks);
  /* the old array stays with the thread's registry until it exits */
  x->checks = n;
  x->capchecks = (uint16_t)ncap;
  return 0;
}

struct vg_check *vg_check_new(struct vg_ctx *c, const uint64_t *tuple,
                              unsigned state, uint64_t ever) {
  struct vg_alt *alt = c->alt;
  if (vg_ensure_x(c) < 0 ||
      (alt->nchecks == alt->x->capchecks && grow_checks(c) < 0)) {
    c->h->dropped = 1;
    return NULL;
  }
  struct vg_check *k = &alt->x->checks[alt->nchecks];
  if (!k->cand) {
    k->cand = vg_alloc(sizeof *k->cand * alt->x->candcap, alt->x->global);
    if (!k->cand) {
      c->h->dropped = 1;
      return NULL;
    }
  }
  alt->nchecks++;
  memset(k->tuple, 0, sizeof k->tuple);
  memcpy(k->tuple, tuple, sizeof(uint64_t) * c->a->ncaptures);
  k->status = 0;
  k->wild = 0;
  k->has_last = 0;
  k->ncand = 1;
  memset(&k->cand[0], 0, sizeof k->cand[0]);
  k->cand[0].state = (uint16_t)state;
  k->cand[0].ever = ever;
  return k;
}

/* Whether candidate cd accepts the FREE slots of `values`; *bind gets the
 * variables the event would bind (with their values in nb). */
static int free_match(const struct vigil_event_desc *ev, const uint64_t *values,
                      const struct vg_cand *cd, uint8_t *bind, uint64_t *nb) {
  *bind = 0;
  for (unsigned i = 0; values && i < ev->nvalues; i++) {
    const struct vigil_value_desc *v = &ev->values[i];
    if (v->kind != VIGIL_VAL_FREE)
      continue;
    unsigned x = v->index;
    if (cd->bound & vg_bit(x)) {
      if (cd->binding[x] != values[i])
        return 0;
    } else if (*bind & vg_bit(x)) {
      if (nb[x] != values[i])
        return 0; /* one variable, two slots, two values */
    } else {
      *bind |= (uint8_t)vg_bit(x);
      nb[x] = values[i];
    }
  }
  return 1;
}

/* Keeps the most telling failure of a dead candidate: the one with the
 * most variables bound, the later on ties. */
static void keep_failure(struct vg_check *k, const struct vg_cand *cd,
                         struct vg_failure *f) {
  f->bound = cd->bound;
  memcpy(f->binding, cd->binding, sizeof f->binding);
  if (k->has_last && __builtin_popcount(k->last.bound) > __builtin_popcount(cd->bound))
    return;
  k->last = *f;
  k->has_last = 1;
}

/* Whether a candidate with these bindings exists (alive or dead): each
 * binding is followed from the first occurrence of its value only — a
 * later occurrence of the same value is that variable's event too. */
static int known_binding(const struct vg_check *k, uint8_t bound, const uint64_t *binding) {
  for (unsigned i = 0; i < k->ncand; i++) {
    const struct vg_cand *o = &k->cand[i];
    if (o->bound != bound)
      continue;
    unsigned x = 0;
    while (x < VIGIL_MAX_FREE && (!(bound & vg_bit(x)) || o->binding[x] == binding[x]))
      x++;
    if (x == VIGIL_MAX_FREE)
      return 1;
  }
  return 0;
}

static int alive(const struct vg_check *k) {
  for (unsigned i = 0; i < k->ncand; i++)
    if (!k->cand[i].dead)
      return 1;
  return 0;
}

static void check_failed(struct vg_ctx *c, struct vg_check *k) {
  k->status |= VG_K_FAILED;
  if (!k->has_last)
    return;
  k->last.has_tuple = c->a->ncaptures > 0;
  memcpy(k->last.tuple, k->tuple, sizeof k->tuple);
  if (c->a->nalternatives == 1)
    vg_alt_fail(c, &k->last);
  else
    c->alt->status |= VG_A_FAILED; /* the check keeps it for the end (instance.c) */
}

/* Steps candidate cd of check k; 1 when it died. */
static int step(struct vg_ctx *c, struct vg_check *k, struct vg_cand *cd, unsigned s,
                const uint64_t *values) {
  struct vg_failure f;
  int r = vg_cand_step(c->a, c->ai, cd, s, values, &f);
  if (r == VG_STEP_FAIL) {
    keep_failure(k, cd, &f);
    cd->dead = 1;
    return 1;
  }
  if (r == VG_STEP_NEWPASS) {
    /* A new window begins with this event (recorded just now, unless it
     * is the site): a later tuple's replay forgets what came before. */
    c->alt->rec_base = c->h->clock - (s != VIGIL_SYM_SITE && vg_records(
                                          &c->a->alternatives[c->ai], c->alt));
  }
  if (vg_is_done(c->a, c->ai, cd->state))
    k->status |= VG_K_DONE;
  return 0;
}

void vg_check_event(struct vg_ctx *c, struct vg_check *k, unsigned s,
                    const uint64_t *values) {
  if (k->status || (values && !vg_tuple_matches(c->a, s, values, k->tuple, k->wild)))
    return; /* another tuple's event (the site carries no values here) */
  vg_check_take(c, k, s, values);
}

void vg_check_take(struct vg_ctx *c, struct vg_check *k, unsigned s,
                   const uint64_t *values) {
  if (k->status)
    return;
  if (c->alt->x->candcap == 1) { /* no free variables: one candidate */
    if (step(c, k, &k->cand[0], s, values))
      check_failed(c, k);
    return;
  }
  const struct vigil_event_desc *ev = &c->a->symbols[s];
  unsigned n = k->ncand;
  for (unsigned i = 0; i < n && !k->status; i++) {
    struct vg_cand *cd = &k->cand[i];
    uint8_t bind = 0;
    uint64_t nb[VIGIL_MAX_FREE];
    if (cd->dead || !free_match(ev, values, cd, &bind, nb))
      continue; /* another binding's event: not this symbol here */
    if (bind) {
      struct vg_cand fork = *cd;
      for (unsigned x = 0; x < VIGIL_MAX_FREE; x++)
        if (bind & vg_bit(x))
          fork.binding[x] = nb[x];
      fork.bound |= bind;
      if (known_binding(k, fork.bound, fork.binding))
        continue; /* that value's run began at its first occurrence */
      if (k->ncand >= c->alt->x->candcap) {
        c->h->dropped = 1; /* too many bindings to follow: say so */
        return;
      }
      k->cand[k->ncand] = fork;
      cd = &k->cand[k->ncand++];
    }
    step(c, k, cd, s, values);
  }
  if (!k->status && !alive(k))
    check_failed(c, k);
}

/* The end of the bound: the check passes when one candidate does. */
void vg_check_end(struct vg_ctx *c, struct vg_check *k) {
  if (k->status)
    return;
  int best = -1;
  struct vg_failure f, bf;
  for (unsigned i = 0; i < k->ncand; i++) {
    if (k->cand[i].dead)
      continue;
    if (!vg_cand_end(c->a, c->ai, &k->cand[i], &f))
      return;
    const struct vigil_automaton *au = &c->a->alternatives[c->ai];
    if (best < 0 || au->states[k->cand[i].state].dist <
                        au->states[k->cand[best].state].dist) {
      best = (int)i;
      bf = f;
    }
  }
  if (best >= 0) {
    k->has_last = 0;
    keep_failure(k, &k->cand[best], &bf);
  }
  check_failed(c, k);
}
