/*
 * vigil/fastpath.h — which transitions instrumented code may take inline.
 *
 * Shared by the link-time pass (which turns these functions into one small
 * constant table per symbol and alternative, indexed by the fast state, and
 * inlines "load state, load table[state], store") and by libvigil (which
 * hands a state back to the inline path after it has done the hard part).
 * The runtime's unit tests run the same functions against the full engine.
 *
 * A fast state f (instance header byte fast[alt], vigil/abi.h) is
 *   0              the runtime owns the state: call it;
 *   1..nstates     DFA state f-1 of the alternative's automaton;
 *   nstates+1      done: guideline mode checked this bound's pass; later
 *                  events of the bound are ignored (a site carrying other
 *                  captured values is a new check: the pass compares them
 *                  and calls the runtime when they differ).
 * A table entry is VIGIL_FAST_SLOW (call the runtime), VIGIL_FAST_IGNORE
 * (nothing to do) or the next fast state.  A transition is plain when its
 * whole effect is "the state is now t": violations, new passes
 * (conditional mode), events carrying captured values before the site
 * (which the forward engine must record) go to the runtime, which owns the
 * semantics.  Every plain transition also records its symbol in ever[alt].
 */
#ifndef VIGIL_FASTPATH_H
#define VIGIL_FASTPATH_H

#include <stdint.h>

#include "vigil/abi.h"

#define VIGIL_FAST_SLOW 0u
#define VIGIL_FAST_IGNORE 0xffu
/* An eager instance (vigil/abi.h) outside its bound: every event ignores it. */
#define VIGIL_FAST_OUTSIDE 0xfeu
/* A log-site assertion's site hook is deciding (vigil_fast_log_site below):
 * a signal handler's events for the instance are ignored meanwhile, by its
 * hooks and by the runtime, as the runtime ignores events raised while it
 * runs. */
#define VIGIL_FAST_BUSY 0xfdu

/* vigil_fast_end: what the outermost exit does with an eager instance. */
#define VIGIL_END_RUNTIME 0u /* the runtime ends it (checks, reports)      */
#define VIGIL_END_QUIET 1u   /* nothing: its site was not reached          */
#define VIGIL_END_PASS 2u    /* checked and passed: one more pass          */

/* The facts about one alternative the decision needs. */
struct vigil_fast_model {
  const struct vigil_automaton *automaton;
  uint64_t static_symbols; /* symbols whose event desc has VIGIL_EF_STATIC */
  unsigned nsymbols, mode;
};

static inline unsigned vigil_fast_done(const struct vigil_fast_model *m) {
  return m->automaton->nstates + 1u;
}

static inline int vigil_fast_eligible(const struct vigil_fast_model *m) {
  return (m->automaton->flags & VIGIL_AF_FAST) &&
         m->automaton->nstates + 1u < VIGIL_FAST_OUTSIDE;
}

static inline unsigned vigil_fast__enter(const struct vigil_fast_model *m,
                                         unsigned from, unsigned to) {
  const struct vigil_automaton *a = m->automaton;
  if (to == from)
    return from + 1;
  if ((a->states[to].flags & VIGIL_SF_FINAL) && m->mode == VIGIL_MODE_GUIDELINE)
    return vigil_fast_done(m);
  return to + 1;
}

/* Symbol s (not a bound, not the site) in fast state f.  In phase 2 a symbol
 * carrying captured values is plain only when they match: the pass compares
 * them inline and calls the runtime otherwise. */
static inline unsigned vigil_fast_next(const struct vigil_fast_model *m,
                                       unsigned f, unsigned s) {
  const struct vigil_automaton *a = m->automaton;
  if (f == 0 || f > a->nstates + 1u || s >= m->nsymbols ||
      s <= VIGIL_SYM_SITE)
    return VIGIL_FAST_SLOW;
  if (f == vigil_fast_done(m))
    return VIGIL_FAST_IGNORE;
  unsigned d = f - 1;
  const struct vigil_state_desc *st = &a->states[d];
  uint64_t bit = 1ull << s;
  if (!(st->flags & VIGIL_SF_PAST_SITE) && !(m->static_symbols & bit))
    return VIGIL_FAST_SLOW; /* before the site: must be recorded */
  if (st->newpass & bit)
    return VIGIL_FAST_SLOW;
  unsigned t = a->next[d * m->nsymbols + s];
  if (t == VIGIL_NO_STATE)
    return VIGIL_FAST_SLOW;
  return vigil_fast__enter(m, d, t);
}

/* The assertion site in fast state f, its captured values being those of
 * the instance (or, when IGNORE is returned for a past-site state, equal to
 * them: the pass compares and calls the runtime when they differ). */
static inline unsigned vigil_fast_site(const struct vigil_fast_model *m,
                                       unsigned f) {
  const struct vigil_automaton *a = m->automaton;
  if (f == 0 || f > a->nstates + 1u)
    return VIGIL_FAST_SLOW;
  if (f == vigil_fast_done(m))
    return VIGIL_FAST_IGNORE;
  unsigned d = f - 1;
  const struct vigil_state_desc *st = &a->states[d];
  if (st->newpass & (1ull << VIGIL_SYM_SITE))
    return VIGIL_FAST_SLOW;
  unsigned t = a->next[d * m->nsymbols + VIGIL_SYM_SITE];
  if (t == VIGIL_NO_STATE)
    return VIGIL_FAST_SLOW;
  if (st->flags & VIGIL_SF_PAST_SITE)
    return t == d ? VIGIL_FAST_IGNORE : VIGIL_FAST_SLOW;
  return vigil_fast__enter(m, d, t);
}

/* ---- Top-level OR (vigil/abi.h "Top-level OR inline") ----------------------
 *
 * In guideline mode an alternative of several that reaches the site in a
 * state before it with no transition there has failed for this bound; the
 * runtime would only mark it (its failure is worded at the end of the bound
 * if no other alternative holds, runtime/shortcut.c "lazily").  Inline it
 * becomes the dead fast state nstates + 2 + d (d: the DFA state it died
 * in, all the wording needs besides ever[]), which ignores every later
 * event and site of the bound; the runtime turns it into its own lazy
 * failure when it is next called for the instance.  Only guideline mode: a
 * state before the site is then never a keyed check's (no new passes), so
 * the failure belongs to the bound's first window, as the runtime's own
 * lazy failure requires.  The encoding needs 2 * nstates + 2 < 0xff. */
static inline int vigil_fast_or_lazy(const struct vigil_fast_model *m,
                                     unsigned nalternatives) {
  return nalternatives > 1 && m->mode == VIGIL_MODE_GUIDELINE &&
         2u * m->automaton->nstates + 2u < 0xffu;
}

/* Whether fast state f is dead (only when vigil_fast_or_lazy). */
static inline int vigil_fast_dead(const struct vigil_fast_model *m, unsigned f) {
  return f > m->automaton->nstates + 1u && f < 2u * m->automaton->nstates + 2u;
}

/* Fast states an alternative's tables cover: 0 .. done, and the dead ones. */
static inline unsigned vigil_fast_states(const struct vigil_fast_model *m,
                                         unsigned nalternatives) {
  unsigned n = m->automaton->nstates;
  return vigil_fast_or_lazy(m, nalternatives) ? 2u * n + 2u : n + 2u;
}

static inline unsigned vigil_fast_next_or(const struct vigil_fast_model *m,
                                          unsigned nalternatives, unsigned f,
                                          unsigned s) {
  if (vigil_fast_or_lazy(m, nalternatives) && vigil_fast_dead(m, f))
    return VIGIL_FAST_IGNORE;
  return vigil_fast_next(m, f, s);
}

/* A dead alternative ignores the site too, like a past-site one: the pass
 * compares the captured values and calls the runtime when they differ. */
static inline unsigned vigil_fast_site_or(const struct vigil_fast_model *m,
                                          unsigned nalternatives, unsigned f) {
  if (!vigil_fast_or_lazy(m, nalternatives))
    return vigil_fast_site(m, f);
  if (vigil_fast_dead(m, f))
    return VIGIL_FAST_IGNORE;
  unsigned r = vigil_fast_site(m, f);
  const struct vigil_automaton *a = m->automaton;
  if (r != VIGIL_FAST_SLOW || f == 0 || f > a->nstates)
    return r;
  unsigned d = f - 1;
  const struct vigil_state_desc *st = &a->states[d];
  if (!(st->flags & VIGIL_SF_PAST_SITE) && !(st->newpass & (1ull << VIGIL_SYM_SITE)) &&
      a->next[d * m->nsymbols + VIGIL_SYM_SITE] == VIGIL_NO_STATE)
    return a->nstates + 2u + d;
  return r;
}

/* The end of the bound for an eager instance in fast state f.  QUIET only
 * in guideline mode for a state before the site: the runtime would find no
 * check, report nothing and count no pass (a pre-site fast state means the
 * site was not reached in this bound: the runtime hands back a pre-site
 * state only while no check exists).  Every other state asks the runtime. */
static inline unsigned vigil_fast_end(const struct vigil_fast_model *m,
                                      unsigned f) {
  const struct vigil_automaton *a = m->automaton;
  if (f == VIGIL_FAST_OUTSIDE)
    return VIGIL_END_QUIET;
  if (f == 0 || f > a->nstates + 1u)
    return VIGIL_END_RUNTIME;
  if (f == vigil_fast_done(m))
    return VIGIL_END_PASS;
  if (m->mode == VIGIL_MODE_GUIDELINE &&
      !(a->states[f - 1].flags & VIGIL_SF_PAST_SITE))
    return VIGIL_END_QUIET;
  return VIGIL_END_RUNTIME;
}

/* ---- The site decided from the inline log (vigil/abi.h "Inline log") ------
 *
 * An alternative that records (its events before the site carry values the
 * site captures) decides nothing until the site; the pass logs its events
 * inline, and for this kind of assertion also replays the log at the site:
 * the entries whose CAPTURE words equal the site's, in order, through
 * `next` from state 0, then the site, exactly what the runtime's replay
 * does with an exact store (runtime/replay.c).  Only one alternative in
 * guideline mode (one check per tuple, no new passes), no free variables,
 * and no symbol both before and after the site: after an inline site a
 * symbol of Pre is only logged (for a later tuple's replay; phase 2 ignores
 * it) and one of Post only steps the fast state, so the runtime, when it is
 * called later, can rebuild the same history from the log (inline_log.c).
 * The site claims the instance (fast[0]: 1 -> VIGIL_FAST_BUSY, one
 * compare-and-swap) before it writes the captures and fast[1], so that a
 * signal handler's site in between cannot mix its writes with these. */
static inline int vigil_fast_log_site(const struct vigil_automaton *au,
                                      unsigned nalternatives, unsigned mode,
                                      unsigned nfree) {
  return nalternatives == 1 && mode == VIGIL_MODE_GUIDELINE && nfree == 0 &&
         !(au->flags & (VIGIL_AF_FORWARD | VIGIL_AF_FREE)) && !(au->pre & au->post) &&
         au->nstates > 0 && au->nstates + 2u < VIGIL_FAST_BUSY;
}

/* ---- Eager OR instances (vigil/abi.h "Eager instances") -------------------
 *
 * The end of the bound for an eager instance with several alternatives is
 * decided from every alternative's fast state.  Each contributes a class,
 * the classes are ORed, and vigil_fast_end_joint turns the union into
 * vigil_fast_end's answer:
 *   DONE   done: the assertion holds for the only value tuple that reached
 *          the site (a second tuple takes every alternative that saw the
 *          site to the runtime), whatever the others are: what the engine
 *          decides (vg_shortcut_end, and report_group without shortcuts).
 *          The one exception, an instance the runtime dropped, has every
 *          fast state 0 (the runtime clears them: instance.c);
 *   OWNED  the runtime owns it (0) or the state is none of the others:
 *          unless another alternative is done, the runtime ends the
 *          instance;
 *   LATER  past the site but not done, or dead: the site was reached, and
 *          unless another alternative is done the runtime decides (and
 *          reports);
 *   0      before the site, or outside the bound: nothing happened yet.
 * With one alternative the classes give exactly vigil_fast_end.  The exit
 * of a passing bound therefore tests one byte (the alternative likeliest
 * done) before anything else. */
#define VIGIL_ENDC_DONE 1u
#define VIGIL_ENDC_LATER 2u
#define VIGIL_ENDC_OWNED 4u

static inline unsigned vigil_fast_end_class(const struct vigil_fast_model *m,
                                            unsigned nalternatives, unsigned f) {
  const struct vigil_automaton *a = m->automaton;
  if (f == VIGIL_FAST_OUTSIDE)
    return 0;
  if (f == 0)
    return VIGIL_ENDC_OWNED;
  if (f == vigil_fast_done(m))
    return VIGIL_ENDC_DONE;
  if (vigil_fast_or_lazy(m, nalternatives) && vigil_fast_dead(m, f))
    return VIGIL_ENDC_LATER;
  if (f > a->nstates)
    return VIGIL_ENDC_OWNED;
  if (!(a->states[f - 1].flags & VIGIL_SF_PAST_SITE))
    return m->mode == VIGIL_MODE_GUIDELINE ? 0 : VIGIL_ENDC_OWNED;
  return VIGIL_ENDC_LATER;
}

static inline unsigned vigil_fast_end_joint(unsigned classes) {
  if (classes & VIGIL_ENDC_DONE)
    return VIGIL_END_PASS;
  if (classes & (VIGIL_ENDC_OWNED | VIGIL_ENDC_LATER))
    return VIGIL_END_RUNTIME;
  return VIGIL_END_QUIET;
}

#endif /* VIGIL_FASTPATH_H */
