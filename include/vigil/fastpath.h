/*
 * vigil/fastpath.h — which transitions instrumented code may take inline.
 *
 * Shared by the link-time pass (which turns these functions into one small
 * constant table per event, indexed by the alternative's fast state, and
 * inlines "load state, load table[state], store") and by libvigil (which
 * hands a state back to the inline path after it has done the hard part).
 * The runtime's unit tests run the same functions against the full engine.
 *
 * A fast state f (instance header byte fast[alt], vigil/abi.h) is
 *   0              the runtime owns the state: call it;
 *   1..nevents     "plain": the last event taken is f-1, no OR-block member
 *                  is pending, no post-site event came early, not failed;
 *   nevents+1      done: guideline mode checked this bound's pass; every
 *                  later event of the bound is ignored.
 * A table entry is VIGIL_FAST_SLOW (call the runtime), VIGIL_FAST_IGNORE
 * (nothing to do) or the next fast state.  Only the transitions whose whole
 * effect is "the last event taken is now x" are plain; restarts, OR blocks,
 * early events, failures, recording into temporal stores and every
 * conditional/strict subtlety go to the runtime, which owns the semantics.
 *
 * Only alternatives whose pre-site events are all static are eligible:
 * their forward engine needs no temporal store before the site (post-site
 * events carrying captured values are compared inline with the captures).
 */
#ifndef VIGIL_FASTPATH_H
#define VIGIL_FASTPATH_H

#include <stdint.h>

#include "vigil/abi.h"

#define VIGIL_FAST_SLOW 0u
#define VIGIL_FAST_IGNORE 0xffu

/* The facts about one alternative the decision needs (arrays of nevents). */
struct vigil_fast_model {
  const uint64_t *successors;
  const uint64_t *or_block;
  const uint8_t *flags;
  unsigned nevents, site, mode;
};

static inline unsigned vigil_fast_done(const struct vigil_fast_model *m) {
  return m->nevents + 1;
}

static inline int vigil_fast_eligible(const struct vigil_fast_model *m) {
  if (m->nevents < 3 || m->nevents > VIGIL_MAX_EVENTS || m->site == 0 ||
      m->site + 1 >= m->nevents)
    return 0;
  for (unsigned e = 1; e < m->site; e++)
    if (!(m->flags[e] & VIGIL_EF_STATIC))
      return 0;
  return 1;
}

/* Event x (1 <= x < nevents-1, x != site) in fast state f. */
static inline unsigned vigil_fast_next(const struct vigil_fast_model *m,
                                       unsigned f, unsigned x) {
  if (f == 0 || f > m->nevents + 1)
    return VIGIL_FAST_SLOW;
  if (f == m->nevents + 1)
    return VIGIL_FAST_IGNORE;
  unsigned cur = f - 1;
  if (x == 0 || x + 1 >= m->nevents || x == m->site)
    return VIGIL_FAST_SLOW;
  uint64_t bx = 1ull << x;
  if (!(m->successors[cur] & bx) || (m->or_block[cur] & bx) ||
      (m->flags[x] & VIGIL_EF_OR))
    return VIGIL_FAST_SLOW;
  if (x > m->site && (m->flags[x] & VIGIL_EF_FINAL))
    /* the pass is complete: guideline mode is done with this bound; the
     * other modes open a new window, which the runtime tracks */
    return m->mode == VIGIL_MODE_GUIDELINE ? vigil_fast_done(m) : VIGIL_FAST_SLOW;
  return x + 1;
}

/* The assertion site in fast state f. */
static inline unsigned vigil_fast_site(const struct vigil_fast_model *m,
                                       unsigned f) {
  if (f == 0 || f > m->nevents + 1)
    return VIGIL_FAST_SLOW;
  if (f == m->nevents + 1)
    return VIGIL_FAST_IGNORE;
  unsigned cur = f - 1, site = m->site;
  if (cur >= site || !(m->successors[cur] & (1ull << site)) ||
      (m->or_block[cur] & (1ull << site)))
    return VIGIL_FAST_SLOW;
  if ((m->flags[site] & VIGIL_EF_FINAL) && m->mode == VIGIL_MODE_GUIDELINE)
    return vigil_fast_done(m);
  return site + 1;
}

#endif /* VIGIL_FASTPATH_H */
