/*
 * engine.c — one DFA step and the verdicts it implies.
 *
 * The pass compiled each alternative into a DFA (compiler/model/Automaton.h)
 * that already encodes restarts, taint (an event expected after the site
 * that came before it), new passes and strict mode; the engine steps it and
 * turns a missing transition into a violation with a reason
 * (docs/engine.md, "Violation reasons").  Everything about which events
 * reach which candidate lives in checks.c and replay.c.
 */
#include <string.h>

#include "internal.h"

void vg_failure_init(struct vg_failure *f, unsigned ai, int reason, int event,
                     uint64_t expected) {
  memset(f, 0, sizeof *f);
  f->reason = reason;
  f->alternative = (int)ai;
  f->event = event;
  f->expected = expected;
}

/* The reason for the missing transition on symbol s in state d, with the
 * symbols seen since the window began in `ever`. */
static void derive(const struct vigil_assertion *a, unsigned ai, unsigned d,
                   unsigned s, uint64_t ever, struct vg_failure *f) {
  const struct vigil_automaton *au = &a->alternatives[ai];
  const struct vigil_state_desc *st = &au->states[d];
  uint64_t need = st->need;
  if (st->flags & VIGIL_SF_PAST_SITE) {
    vg_failure_init(f, ai,
                    a->mode == VIGIL_MODE_STRICT ? VG_R_UNEXPECTED_EVENT
                                                 : VG_R_WRONG_ORDER,
                    (int)s, need);
    return;
  }
  if (s == VIGIL_SYM_SITE) {
    if (st->early != VIGIL_NO_SYMBOL) {
      vg_failure_init(f, ai, VG_R_EARLY_EVENT, st->early, need);
      return;
    }
    int named = st->named == VIGIL_NO_SYMBOL ? -1 : st->named;
    /* "wrong order" when the event did happen in this window, only not
     * where the pattern needs it */
    int reason = named >= 0 && (ever & vg_bit((unsigned)named))
                     ? VG_R_WRONG_ORDER
                     : VG_R_MISSING_BEFORE_SITE;
    vg_failure_init(f, ai, reason, named, need);
    return;
  }
  vg_failure_init(f, ai, VG_R_UNEXPECTED_EVENT, (int)s, need);
}

/* Steps candidate c on symbol s.  A symbol in the state's `newpass` begins
 * a new window first (conditional mode): `ever` restarts and, when the
 * symbol then has no transition, the failure is the fresh window's. */
int vg_cand_step(const struct vigil_assertion *a, unsigned ai,
                 struct vg_cand *c, unsigned s, const uint64_t *values,
                 struct vg_failure *f) {
  const struct vigil_automaton *au = &a->alternatives[ai];
  unsigned d = c->state;
  int newpass = (au->states[d].newpass & vg_bit(s)) != 0;
  if (newpass)
    c->ever = 0;
  unsigned t = au->next[d * a->nsymbols + s];
  if (t == VIGIL_NO_STATE) {
    derive(a, ai, newpass ? 0 : d, s, c->ever, f);
    if (values && f->event == (int)s) {
      const struct vigil_event_desc *ev = &a->symbols[s];
      f->has_values = 1;
      memcpy(f->values, values, sizeof(uint64_t) * ev->nvalues);
    }
    return VG_STEP_FAIL;
  }
  c->ever |= vg_bit(s);
  c->state = (uint16_t)t;
  return newpass ? VG_STEP_NEWPASS : VG_STEP_OK;
}

/* The end of the bound for one candidate: 0 when it passes, else 1 with
 * the failure. */
int vg_cand_end(const struct vigil_assertion *a, unsigned ai,
                const struct vg_cand *c, struct vg_failure *f) {
  const struct vigil_state_desc *st = &a->alternatives[ai].states[c->state];
  if (st->flags & VIGIL_SF_PAST_SITE) {
    if (st->flags & VIGIL_SF_FINAL)
      return 0;
    vg_failure_init(f, ai, VG_R_MISSING_AFTER_SITE,
                    st->named == VIGIL_NO_SYMBOL ? -1 : st->named, st->need);
    return 1;
  }
  if (a->mode == VIGIL_MODE_STRICT && !(st->flags & VIGIL_SF_INITIAL)) {
    vg_failure_init(f, ai, VG_R_SITE_NOT_REACHED, VIGIL_SYM_SITE, st->need);
    return 1;
  }
  return 0;
}
