/*
 * replay.c — recording alternatives (docs/engine.md, "Recording" and
 * "Mixed").
 *
 * An alternative whose events before the site need the site's values
 * (not VIGIL_AF_FORWARD), or binds free variables, or is a forward one that
 * saw an event after the site carrying captured values before the site
 * (mixed: VG_A_RECORDING, from the state it had then), cannot step before
 * the site.  It records occurrences; at the site a new tuple's check
 * replays those that carry the tuple, in order, then takes the site.
 *
 * When the store lost occurrences (tags keeps two per key, a ring is
 * bounded by VIGIL_STORE_LIMIT), only a suffix of the list is exact.  The
 * answer is still known when that suffix leads to the same outcome from
 * every phase-1 state (restarts usually synchronise); otherwise the
 * instance is dropped and counted — never a guessed verdict.
 */
#include <string.h>

#include "internal.h"

static int uses_tags(const struct vigil_automaton *au) {
  return (au->flags & VIGIL_AF_TAGS) && vg_config.algorithm == VG_TAGS;
}

/* Most events of a recording assertion arrive here: nothing to decide,
 * one append.  What vg_record would do, without the context it needs for
 * the rarer cases (memory not yet there, after the site, mixed). */
static inline int quick(const struct vigil_assertion *a, struct vg_header *h,
                        unsigned s) {
  const struct vigil_automaton *au = &a->alternatives[0];
  const struct vg_alt *alt = vg_alts(h);
  return alt->gen == h->gen && !alt->status && (au->alphabet & vg_bit(s)) &&
         (!(au->flags & VIGIL_AF_FORWARD) || (au->flags & VIGIL_AF_FREE)) && alt->x &&
         alt->x->store;
}

int vg_record_quick(struct vigil_assertion *a, struct vg_header *h, unsigned s,
                    const uint64_t *values) {
  if (!quick(a, h, s))
    return 0;
  struct vg_alt *alt = vg_alts(h);
  if (vg_store_record(alt->x, uses_tags(&a->alternatives[0]), &a->symbols[s], s,
                      ++h->clock, values) < 0)
    h->dropped = 1;
  return 1;
}

/* The inline log's entries (inline_log.c), each what vg_engine_event does
 * with it when vg_record_quick takes it (single alternative, initialised,
 * not dropped): counted and appended.  Stops at the first it cannot take;
 * returns how many it took. */
unsigned vg_record_quick_run(struct vigil_assertion *a, struct vg_header *h,
                             const uint64_t *e, unsigned n, unsigned stride) {
  if (a->nalternatives != 1 || !n || !quick(a, h, (unsigned)e[0]))
    return 0;
  /* quick() of the alternative holds for the run: recording changes
   * nothing it reads but `dropped` */
  struct vg_alt *alt = vg_alts(h);
  const struct vigil_automaton *au = &a->alternatives[0];
  int tags = uses_tags(au);
  unsigned i = 0;
  for (; i < n && !h->dropped; i++, e += stride) {
    unsigned s = (unsigned)e[0];
    if (s <= VIGIL_SYM_SITE || s >= a->nsymbols || !(au->alphabet & vg_bit(s)))
      break;
    h->events++;
    if (vg_store_record(alt->x, tags, &a->symbols[s], s, ++h->clock, e + 1) < 0)
      h->dropped = 1;
  }
  return i;
}

/* Pre symbols always (a later tuple or a new pass may need them), symbols
 * only after the site only before the first site (they taint attempts). */
void vg_record(struct vg_ctx *c, unsigned s, const uint64_t *values) {
  const struct vigil_automaton *au = &c->a->alternatives[c->ai];
  if (!(au->pre & vg_bit(s)) && (c->alt->status & VG_A_SITE))
    return;
  if ((!c->alt->x && vg_ensure_x(c) < 0) ||
      vg_store_record(c->alt->x, uses_tags(au), &c->a->symbols[s], s,
                      ++c->h->clock, values) < 0)
    c->h->dropped = 1;
}

struct keep_ctx {
  const struct vigil_assertion *a;
  const uint64_t *tuple; /* NULL: every occurrence */
};

static int keep(void *ctx, const struct vg_occurrence *o) {
  struct keep_ctx *k = ctx;
  return !k->tuple || vg_tuple_matches(k->a, o->sym, o->vals, k->tuple, 0);
}

/* The outcome of stepping from `state` over list[from..n) then the site:
 * the state reached, or NO_STATE | reason << 16 | event << 24. */
static uint64_t outcome(struct vg_ctx *c, unsigned state, const struct vg_occurrence *list,
                        size_t from, size_t n) {
  struct vg_cand cd = {.state = (uint16_t)state};
  struct vg_failure f;
  for (size_t i = from; i <= n; i++) {
    unsigned s = i < n ? list[i].sym : VIGIL_SYM_SITE;
    if (vg_cand_step(c->a, c->ai, &cd, s, i < n ? list[i].vals : NULL, &f) == VG_STEP_FAIL)
      return VIGIL_NO_STATE | (uint64_t)f.reason << 16 | (uint64_t)(f.event & 0xff) << 24;
  }
  return cd.state;
}

/* Whether the exact suffix (timestamps >= exact_from) decides the site the
 * same way from every phase-1 state. */
static int knowable(struct vg_ctx *c, const struct vg_occurrence *list, size_t n,
                    uint64_t exact_from) {
  const struct vigil_automaton *au = &c->a->alternatives[c->ai];
  if (au->flags & VIGIL_AF_FREE)
    return 0;
  size_t from = 0;
  while (from < n && list[from].ts < exact_from)
    from++;
  uint64_t want = outcome(c, 0, list, from, n);
  for (unsigned d = 1; d < au->nstates; d++)
    if (!(au->states[d].flags & VIGIL_SF_PAST_SITE) &&
        outcome(c, d, list, from, n) != want)
      return 0;
  return 1;
}

void vg_replay_site(struct vg_ctx *c, const uint64_t *tuple) {
  const struct vigil_automaton *au = &c->a->alternatives[c->ai];
  struct vg_alt *alt = c->alt;
  struct keep_ctx kc = {c->a, tuple};
  struct vg_occurrence *list = NULL;
  size_t n = 0;
  uint64_t exact_from = 0;
  if (vg_ensure_x(c) < 0 ||
      vg_store_collect(alt->x, uses_tags(au), alt->rec_base, keep, &kc, &list, &n,
                       &exact_from) < 0) {
    c->h->dropped = 1;
    return;
  }
  if (exact_from && !(alt->status & VG_A_RECORDING) && !knowable(c, list, n, exact_from)) {
    c->h->dropped = 1; /* the store lost what this answer depends on */
    return;
  }
  if (exact_from && (alt->status & VG_A_RECORDING)) {
    c->h->dropped = 1;
    return;
  }
  int mixed = (alt->status & VG_A_RECORDING) != 0;
  struct vg_check *k = vg_check_new(c, tuple, mixed ? alt->saved : 0,
                                    mixed ? alt->saved_ever : 0);
  if (!k)
    return;
  /* collect() kept the occurrences that carry the tuple */
  for (size_t i = 0; i < n && !k->status && !c->h->dropped; i++)
    vg_check_take(c, k, list[i].sym, list[i].vals);
  if (!k->status && !c->h->dropped)
    vg_check_take(c, k, VIGIL_SYM_SITE, NULL);
}

/* The captures occurrence o carries (mask) and their values (into t). */
static unsigned carried(const struct vigil_assertion *a, const struct vg_occurrence *o,
                        uint64_t *t) {
  const struct vigil_event_desc *ev = &a->symbols[o->sym];
  unsigned mask = 0;
  for (unsigned i = 0; i < ev->nvalues; i++)
    if (ev->values[i].kind == VIGIL_VAL_CAPTURE) {
      mask |= 1u << ev->values[i].index;
      t[ev->values[i].index] = o->vals[i];
    }
  return mask;
}

/* Replays list[0..n) as the check of a partial tuple; 1 when it failed
 * (reported at once with one alternative). */
static int unreached_tuple(struct vg_ctx *c, const uint64_t *tuple, unsigned wild,
                           const struct vg_occurrence *list, size_t n) {
  struct vg_alt *alt = c->alt;
  int mixed = (alt->status & VG_A_RECORDING) != 0;
  struct vg_check *k = vg_check_new(c, tuple, mixed ? alt->saved : 0,
                                    mixed ? alt->saved_ever : 0);
  if (!k)
    return 1;
  k->wild = (uint16_t)wild;
  for (size_t i = 0; i < n && !k->status && !c->h->dropped; i++)
    vg_check_event(c, k, list[i].sym, list[i].vals);
  vg_check_end(c, k);
  int failed = (k->status & VG_K_FAILED) != 0;
  /* Without a site the failure is the alternative's, whatever the tuple
   * (top-level OR: kept for the end of the bound like a pre-site one). */
  if (failed && k->has_last && c->a->nalternatives > 1 && !alt->x->has_failure) {
    alt->x->failure = k->last;
    alt->x->has_failure = 1;
  }
  alt->nchecks--; /* a trial, not a tuple that reached the site */
  return failed;
}

/* Strict mode, the bound ends and the site never came, so no tuple was
 * captured: the sequence had begun if it had for the values some recorded
 * occurrence carries (each distinct partial tuple, in order of first
 * appearance; captures it does not carry match anything).  One violation
 * per alternative. */
void vg_strict_unreached(struct vg_ctx *c) {
  const struct vigil_automaton *au = &c->a->alternatives[c->ai];
  struct vg_alt *alt = c->alt;
  struct keep_ctx kc = {c->a, NULL};
  struct vg_occurrence *list = NULL;
  size_t n = 0;
  uint64_t exact_from = 0;
  if (!alt->x || vg_store_collect(alt->x, uses_tags(au), alt->rec_base, keep, &kc,
                                  &list, &n, &exact_from) < 0)
    return;
  if (exact_from) {
    c->h->dropped = 1; /* strict: what the store lost would decide it */
    return;
  }
  unsigned all = (1u << c->a->ncaptures) - 1u;
  int any = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t t[VIGIL_MAX_CAPTURES] = {0}, u[VIGIL_MAX_CAPTURES];
    unsigned mask = carried(c->a, &list[i], t);
    if (!mask)
      continue;
    int seen = 0;
    for (size_t j = 0; j < i && !seen; j++) {
      memset(u, 0, sizeof u);
      seen = carried(c->a, &list[j], u) == mask && !memcmp(t, u, sizeof t);
    }
    any = 1;
    if (!seen && unreached_tuple(c, t, all & ~mask, list, n))
      return;
  }
  if (!any) {
    uint64_t t[VIGIL_MAX_CAPTURES] = {0};
    unreached_tuple(c, t, all, list, n);
  }
}
