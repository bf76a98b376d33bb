/*
 * shortcut.c — the inline fast path's transitions, taken inside the runtime.
 *
 * Per-thread assertions take their plain transitions inline (vigil/abi.h,
 * vigil/fastpath.h); what still reaches the runtime is global assertions
 * (every event), symbols that several top-level OR alternatives observe,
 * and the end of bounds with OR alternatives.  Most of those are plain too,
 * so before the generic engine (instance.c: reclaim, keyed checks,
 * candidates, hand back) runs, each alternative still in a fast state tries
 * the same table step the inline code would have taken.  The generic engine
 * runs only for the alternatives whose step is not plain, and it takes
 * their state over exactly as it does from the inline path, so there is one
 * semantics: the runtime's unit tests run every case with shortcuts on and
 * off, and VIGIL_FAST_PATH=0 in the environment turns them off.
 *
 * The decisions of vigil/fastpath.h are made once per assertion, when the
 * runtime first sees it (vg_shortcut_prepare), into a byte table per
 * alternative indexed by fast state and symbol, as the pass does for the
 * inline code: a step is then one load.  Measured (bench/compare.py): the
 * generic engine costs 300-900 instructions per event, a shortcut step
 * some 30.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "vigil/fastpath.h"

/* info[f * nsymbols + s] bits */
enum {
  VG_I_LAZY = 1,    /* no transition before the site: may fail lazily */
  VG_I_COMPARE = 2  /* a plain step in phase 2 carrying captured values */
};
/* fstate[f] bits */
enum {
  VG_F_PAST = 1,    /* done, or a state past the site */
  VG_F_HOLDS = 2    /* the bound may end here (vg_cand_end passes) */
};

struct vg_fast_table {
  uint8_t *step;    /* (nstates + 2) x nsymbols: vigil_fast_next / _site */
  uint8_t *info;
  uint8_t *fstate;  /* nstates + 2 */
  unsigned done;
};

static void prepare_alt(const struct vigil_assertion *a, unsigned ai,
                        const struct vigil_fast_model *m, struct vg_fast_table *t) {
  const struct vigil_automaton *au = &a->alternatives[ai];
  unsigned nf = au->nstates + 2u, ns = a->nsymbols;
  t->done = vigil_fast_done(m);
  for (unsigned f = 1; f < nf; f++) {
    int done = f == t->done;
    const struct vigil_state_desc *st = done ? NULL : &au->states[f - 1];
    struct vg_cand cd = {.state = (uint16_t)(f - 1)};
    struct vg_failure fl;
    t->fstate[f] = (uint8_t)((done || (st->flags & VIGIL_SF_PAST_SITE) ? VG_F_PAST : 0) |
                             (done || !vg_cand_end(a, ai, &cd, &fl) ? VG_F_HOLDS : 0));
    for (unsigned s = VIGIL_SYM_SITE; s < ns; s++) {
      unsigned i = f * ns + s;
      t->step[i] = (uint8_t)(s == VIGIL_SYM_SITE ? vigil_fast_site(m, f)
                                                 : vigil_fast_next(m, f, s));
      if (done)
        continue;
      uint64_t bit = vg_bit(s);
      int pre = !(st->flags & VIGIL_SF_PAST_SITE);
      if (t->step[i] == VIGIL_FAST_SLOW && pre && !(st->newpass & bit) &&
          a->nalternatives > 1 && au->next[(f - 1) * ns + s] == VIGIL_NO_STATE &&
          (s == VIGIL_SYM_SITE || ((m->static_symbols & bit) &&
                                   a->symbols[s].nvalues <= VG_LAZY_MAX_VALUES)))
        t->info[i] |= VG_I_LAZY;
      if (s != VIGIL_SYM_SITE && !pre && !(m->static_symbols & bit) &&
          t->step[i] != VIGIL_FAST_SLOW && t->step[i] != VIGIL_FAST_IGNORE)
        t->info[i] |= VG_I_COMPARE;
    }
  }
}

int vg_shortcut_prepare(const struct vigil_assertion *a, struct vg_assertion_rt *rt) {
  size_t bytes = 0;
  for (unsigned ai = 0; ai < a->nalternatives; ai++)
    if (rt->fast_init[ai])
      bytes += (a->alternatives[ai].nstates + 2u) * (2u * a->nsymbols + 1u);
  /* one block: the stats registry keeps rt (and this) for the process */
  struct vg_fast_table *t = calloc(1, sizeof *t * a->nalternatives + bytes);
  if (!t)
    return -1;
  uint8_t *p = (uint8_t *)(t + a->nalternatives);
  for (unsigned ai = 0; ai < a->nalternatives; ai++) {
    if (!rt->fast_init[ai])
      continue;
    unsigned nf = a->alternatives[ai].nstates + 2u;
    t[ai].step = p, p += nf * a->nsymbols;
    t[ai].info = p, p += nf * a->nsymbols;
    t[ai].fstate = p, p += nf;
    struct vigil_fast_model m = {&a->alternatives[ai], rt->static_symbols, a->nsymbols,
                                 a->mode};
    prepare_alt(a, ai, &m, &t[ai]);
  }
  rt->tables = t;
  return 0;
}

/* The inline path's "transition into done" bookkeeping (vigil/abi.h). */
static void enter(struct vigil_assertion *a, struct vigil_bound *b, struct vg_header *h,
                  unsigned ai, unsigned s, unsigned next, unsigned done) {
  h->ever[ai] |= vg_bit(s);
  h->fast[ai] = (uint8_t)next;
  if (next == done && a->nalternatives == 1 && !a->eager && !h->settled) {
    h->settled = 1;
    h->passes++;
    if (b->pending)
      b->pending--;
  }
}

/* Whether the CAPTURE slots of `values` carry the instance's captured
 * values (the only tuple while every observing alternative is fast). */
static int own_tuple(const struct vigil_assertion *a, unsigned s,
                     const uint64_t *values, const struct vg_header *h) {
  const struct vigil_event_desc *ev = &a->symbols[s];
  if (ev->flags & (VIGIL_EF_FREE | VIGIL_EF_KEY) || !values)
    return 0;
  return vg_tuple_matches(a, s, values, vg_captures(a, (void *)h), 0);
}

/* A lazy failure only in the first window of the bound, before any check
 * exists (a later window's failure belongs to its keyed check). */
static int untouched(const struct vg_header *h, unsigned ai) {
  const struct vg_alt *alt = &vg_alts((void *)h)[ai];
  return alt->gen != h->gen || (!alt->status && !alt->nchecks);
}

uint64_t vg_shortcut_event(struct vigil_assertion *a, struct vigil_bound *b,
                           struct vg_header *h, unsigned s, const uint64_t *values) {
  const struct vg_assertion_rt *rt = a->runtime;
  uint64_t slow = 0;
  for (unsigned ai = 0; ai < a->nalternatives; ai++) {
    if (!(a->alternatives[ai].alphabet & vg_bit(s)))
      continue;
    unsigned f = h->fast[ai];
    if (!f) {
      if (!vg_alt_inert(h, ai)) /* one failed before the site ignores the rest */
        slow |= vg_bit(ai);
      continue;
    }
    const struct vg_fast_table *t = &rt->tables[ai];
    unsigned i = f * a->nsymbols + s, next = t->step[i];
    if (next == VIGIL_FAST_IGNORE)
      continue;
    if (next == VIGIL_FAST_SLOW) {
      if ((t->info[i] & VG_I_LAZY) && untouched(h, ai))
        vg_fail_lazily(a, h, ai, f - 1, s, values);
      else
        slow |= vg_bit(ai);
      continue;
    }
    if ((t->info[i] & VG_I_COMPARE) && !own_tuple(a, s, values, h)) {
      slow |= vg_bit(ai); /* another tuple's event: the checks decide */
      continue;
    }
    enter(a, b, h, ai, s, next, t->done);
  }
  return slow;
}

/* All or nothing: the captured values of a site belong to every
 * alternative, so either every alternative takes it here (a plain step, a
 * failure before the site, or nothing for one that already failed) or the
 * generic engine takes it for all. */
int vg_shortcut_site(struct vigil_assertion *a, struct vigil_bound *b,
                     struct vg_header *h, const uint64_t *captures) {
  const struct vg_assertion_rt *rt = a->runtime;
  enum { SKIP = 0x100, FAIL = 0x200 };
  unsigned next[VIGIL_MAX_ALTERNATIVES];
  int past = 0;
  for (unsigned ai = 0; ai < a->nalternatives; ai++) {
    unsigned f = h->fast[ai];
    if (!f && vg_alt_inert(h, ai)) {
      next[ai] = SKIP;
      past = 1; /* it may have failed at an earlier site with these values */
      continue;
    }
    if (!f)
      return 0;
    const struct vg_fast_table *t = &rt->tables[ai];
    unsigned i = f * a->nsymbols + VIGIL_SYM_SITE;
    next[ai] = t->step[i];
    if (next[ai] == VIGIL_FAST_SLOW) {
      if (!(t->info[i] & VG_I_LAZY) || !untouched(h, ai))
        return 0;
      next[ai] = FAIL;
    }
    past |= t->fstate[f] & VG_F_PAST;
  }
  size_t bytes = sizeof(uint64_t) * a->ncaptures;
  if (captures && bytes) {
    if (past && memcmp(captures, vg_captures(a, h), bytes))
      return 0; /* a new tuple: a new keyed check */
    if (!past)
      memcpy(vg_captures(a, h), captures, bytes);
  }
  for (unsigned ai = 0; ai < a->nalternatives; ai++) {
    if (next[ai] == SKIP || next[ai] == VIGIL_FAST_IGNORE)
      continue;
    if (next[ai] == FAIL)
      vg_fail_lazily(a, h, ai, h->fast[ai] - 1u, VIGIL_SYM_SITE, NULL);
    else
      enter(a, b, h, ai, VIGIL_SYM_SITE, next[ai], rt->tables[ai].done);
  }
  h->site = 1;
  return 1;
}

/* The end of the bound when an alternative still in a fast state passes:
 * it holds for the only tuple that reached the site (a second tuple would
 * have given it a second check, which no fast state has), so the assertion
 * holds whatever the others did.  Returns 0 when the generic engine must
 * decide (and report). */
int vg_shortcut_end(struct vigil_assertion *a, struct vg_header *h) {
  const struct vg_assertion_rt *rt = a->runtime;
  int held = 0, site = h->site;
  for (unsigned ai = 0; ai < a->nalternatives; ai++) {
    unsigned f = h->fast[ai];
    if (!f)
      continue;
    unsigned fs = rt->tables[ai].fstate[f];
    site |= fs & VG_F_PAST;
    held |= (fs & VG_F_HOLDS) != 0;
  }
  if (!held)
    return 0;
  if (site && !h->reported)
    h->passes++;
  h->settled = 1;
  return 1;
}
