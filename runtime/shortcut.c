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
 * Measured (bench/compare.py): the generic engine costs 300-900
 * instructions per event; a shortcut step is a table lookup per observing
 * alternative.
 */
#include <string.h>

#include "internal.h"
#include "vigil/fastpath.h"

static struct vigil_fast_model model(const struct vigil_assertion *a, unsigned ai,
                                     const struct vg_assertion_rt *rt) {
  struct vigil_fast_model m = {&a->alternatives[ai], rt->static_symbols,
                               a->nsymbols, a->mode};
  return m;
}

/* The inline path's "transition into done" bookkeeping (vigil/abi.h). */
static void enter(struct vigil_assertion *a, struct vigil_bound *b,
                  struct vg_header *h, unsigned ai, unsigned s, unsigned next,
                  const struct vigil_fast_model *m) {
  h->ever[ai] |= vg_bit(s);
  h->fast[ai] = (uint8_t)next;
  if (next == vigil_fast_done(m) && a->nalternatives == 1 && !h->settled) {
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
  if (ev->flags & VIGIL_EF_STATIC)
    return 1;
  if (ev->flags & (VIGIL_EF_FREE | VIGIL_EF_KEY) || !values)
    return 0;
  return vg_tuple_matches(a, s, values, vg_captures(a, (void *)h), 0);
}

/* Alternative ai of several has no transition on s (a static event or
 * the site) before the site: failed for this bound, derived lazily. */
static int fails_before_site(const struct vigil_assertion *a, const struct vg_header *h,
                             unsigned ai, unsigned f, unsigned s,
                             const struct vigil_fast_model *m) {
  if (a->nalternatives == 1 || f == 0 || f == vigil_fast_done(m))
    return 0;
  /* only the first window of the bound, before any check exists (a later
   * window's failure belongs to its keyed check) */
  const struct vg_alt *alt = &vg_alts((void *)h)[ai];
  if (alt->gen == h->gen && (alt->status || alt->nchecks))
    return 0;
  const struct vigil_automaton *au = &a->alternatives[ai];
  const struct vigil_state_desc *st = &au->states[f - 1];
  if ((st->flags & VIGIL_SF_PAST_SITE) || (st->newpass & vg_bit(s)))
    return 0;
  if (s != VIGIL_SYM_SITE && (!(m->static_symbols & vg_bit(s)) ||
                              a->symbols[s].nvalues > VG_LAZY_MAX_VALUES))
    return 0;
  return au->next[(f - 1) * a->nsymbols + s] == VIGIL_NO_STATE;
}

uint64_t vg_shortcut_event(struct vigil_assertion *a, struct vigil_bound *b,
                           struct vg_header *h, unsigned s, const uint64_t *values) {
  const struct vg_assertion_rt *rt = a->runtime;
  if (!rt)
    return (1ull << a->nalternatives) - 1;
  uint64_t slow = 0;
  int mine = -1; /* own_tuple, computed once when needed */
  for (unsigned ai = 0; ai < a->nalternatives; ai++) {
    const struct vigil_automaton *au = &a->alternatives[ai];
    if (!(au->alphabet & vg_bit(s)))
      continue;
    unsigned f = h->fast[ai];
    if (!f && vg_alt_inert(h, ai))
      continue; /* failed before the site: ignores the rest of the bound */
    struct vigil_fast_model m = model(a, ai, rt);
    unsigned next = f ? vigil_fast_next(&m, f, s) : VIGIL_FAST_SLOW;
    if (next != VIGIL_FAST_SLOW && next != VIGIL_FAST_IGNORE &&
        (au->states[f - 1].flags & VIGIL_SF_PAST_SITE)) {
      if (mine < 0)
        mine = own_tuple(a, s, values, h);
      if (!mine)
        next = VIGIL_FAST_SLOW; /* another tuple's event: the checks decide */
    }
    if (next == VIGIL_FAST_SLOW && fails_before_site(a, h, ai, f, s, &m))
      vg_fail_lazily(a, h, ai, f - 1, s, values);
    else if (next == VIGIL_FAST_SLOW)
      slow |= vg_bit(ai);
    else if (next != VIGIL_FAST_IGNORE)
      enter(a, b, h, ai, s, next, &m);
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
  if (!rt)
    return 0;
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
    struct vigil_fast_model m = model(a, ai, rt);
    unsigned t = vigil_fast_site(&m, f);
    if (t == VIGIL_FAST_SLOW && !fails_before_site(a, h, ai, f, VIGIL_SYM_SITE, &m))
      return 0;
    next[ai] = t == VIGIL_FAST_SLOW ? FAIL : t;
    past |= f == vigil_fast_done(&m) ||
            (a->alternatives[ai].states[f - 1].flags & VIGIL_SF_PAST_SITE);
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
    if (next[ai] == FAIL) {
      vg_fail_lazily(a, h, ai, h->fast[ai] - 1u, VIGIL_SYM_SITE, NULL);
      continue;
    }
    struct vigil_fast_model m = model(a, ai, rt);
    enter(a, b, h, ai, VIGIL_SYM_SITE, next[ai], &m);
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
  if (!rt)
    return 0;
  for (unsigned ai = 0; ai < a->nalternatives; ai++) {
    unsigned f = h->fast[ai];
    if (!f)
      continue;
    struct vigil_fast_model m = model(a, ai, rt);
    if (f == vigil_fast_done(&m)) {
      held = site = 1;
      continue;
    }
    struct vg_cand cd = {.state = (uint16_t)(f - 1), .ever = h->ever[ai]};
    struct vg_failure fl;
    site |= (a->alternatives[ai].states[f - 1].flags & VIGIL_SF_PAST_SITE) != 0;
    if (!held && !vg_cand_end(a, ai, &cd, &fl))
      held = 1;
  }
  if (!held)
    return 0;
  if (site && !h->reported)
    h->passes++;
  h->settled = 1;
  return 1;
}
