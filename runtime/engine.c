/*
 * engine.c — the automaton engine: what one event does to one instance.
 *
 * Semantics (docs/assertion-language.md has the user's view):
 *
 *  - Static automata (every event static) run forward, O(1) per event: the
 *    state is the last event taken; an event is a transition if it is a
 *    forward successor of the state, or an untaken member of the state's OR
 *    block (§3.1.3, §3.2.1).  A pre-site event that is not a transition
 *    restarts the attempt and is re-tried from the first bound, so that
 *    `A A B` satisfies previously(A, B).  A post-site event seen before the
 *    site is remembered ("early") and fails the assertion at the site, as in
 *    Algorithm 3.1 line 16.
 *
 *  - Non-static automata cannot decide anything before the site, where the
 *    captured values become known: they record occurrences in a temporal
 *    store (store.c; the per-event tags of Algorithm 3.1 or the linear
 *    history of Algorithm 3.2).  At the site a backward walk over the
 *    occurrences that carry the expected values decides the same question
 *    the forward engine would have answered on that filtered trace; the
 *    automaton is then promoted to static (§3.2.5) and runs forward, ignoring
 *    events whose values differ from the captured ones.
 *
 *  - Bounds nest (recursion): only the outermost entry and exit count.  An
 *    instance is initialised lazily by the first event that touches it in a
 *    bound (late initialisation, §4.2.4), so entering a bound costs O(1)
 *    whatever the number of alternatives.
 *
 *  - Modes: guideline (default) disables the alternative once a final event
 *    is taken after the site, so a site reached twice in one bound is
 *    checked once; conditional checks every arrival at the site, each needing
 *    a fresh sequence; strict fails on any event that is not a transition,
 *    and at the end of a bound that did not complete the sequence.
 */
#include <string.h>

#include "internal.h"

static inline uint64_t bit(unsigned i) { return 1ull << i; }

static inline unsigned lowest(uint64_t m) { return (unsigned)__builtin_ctzll(m); }

/* The alternative's state for the current bound, initialised on first use. */
static struct vg_alt *touch(struct vg_header *h, void *instance, unsigned i) {
  struct vg_alt *alt = &vg_alts(instance)[i];
  if (alt->gen != h->gen) {
    alt->gen = h->gen;
    alt->cur = 0;
    alt->status = 0;
    alt->seen = 0;
    alt->early = 0;
    alt->ever = 0;
    alt->rec_base = h->clock; /* forget occurrences of earlier bounds */
  }
  return alt;
}

static uint64_t allowed_from(const struct vigil_automaton *au,
                             const struct vg_alt *alt) {
  const struct vigil_event_desc *e = &au->events[alt->cur];
  /* members of the current OR block are taken at most once each */
  return (e->successors | e->or_block) & ~alt->seen;
}

static int past_site(const struct vigil_automaton *au, const struct vg_alt *alt) {
  return alt->cur >= au->site;
}

static void fail(struct vigil_assertion *a, void *instance, unsigned alt_index,
                 int reason, int event, const uint64_t *values,
                 uint64_t expected) {
  struct vg_failure f;
  memset(&f, 0, sizeof f);
  f.reason = reason;
  f.alternative = (int)alt_index;
  f.event = event;
  f.expected = expected;
  if (values) {
    const struct vigil_automaton *au = &a->alternatives[alt_index];
    f.has_values = 1;
    memcpy(f.values, values,
           sizeof(uint64_t) * au->events[event].nvalues);
  }
  vg_fail(a, instance, &f);
}

/* Take transition x (already known to be allowed). */
static void take(struct vigil_assertion *a, const struct vigil_automaton *au,
                 struct vg_alt *alt, unsigned x, uint64_t clock) {
  const struct vigil_event_desc *from = &au->events[alt->cur];
  const struct vigil_event_desc *to = &au->events[x];
  if (alt->cur == 0)
    alt->early = 0; /* a new attempt begins */
  if (from->or_block & bit(x))
    alt->seen |= bit(x);
  else
    alt->seen = (to->flags & VIGIL_EF_OR) ? bit(x) : 0;
  alt->cur = (uint8_t)x;
  if (x > au->site && (to->flags & VIGIL_EF_FINAL)) {
    /* The pass through the sequence is complete: the window in which the
     * next arrival at the site looks for its own sequence starts now. */
    alt->ever = 0;
    alt->rec_base = clock;
  }
  if (x >= au->site && (to->flags & VIGIL_EF_FINAL) &&
      a->mode == VIGIL_MODE_GUIDELINE)
    alt->status |= VG_ALT_DISABLED; /* checked once in this bound: done */
}

static void restart(struct vg_alt *alt) {
  alt->cur = 0;
  alt->seen = 0;
  alt->early = 0;
}

/* Forward step for event x (static automaton, or promoted non-static one).
 * `values` are the observed values, for reports. */
static void forward(struct vigil_assertion *a, void *instance, unsigned ai,
                    const struct vigil_automaton *au, struct vg_alt *alt,
                    unsigned x, const uint64_t *values) {
  const struct vigil_event_desc *ev = &au->events[x];
  uint64_t allowed = allowed_from(au, alt);
  if (allowed & bit(x)) {
    take(a, au, alt, x, ((struct vg_header *)instance)->clock);
    return;
  }
  uint64_t end = bit(au->nevents - 1u);
  if (a->mode == VIGIL_MODE_STRICT) {
    fail(a, instance, ai, VG_R_UNEXPECTED_EVENT, (int)x, values, allowed & ~end);
    return;
  }
  if (past_site(au, alt)) {
    if (ev->flags & VIGIL_EF_POST_SITE) {
      fail(a, instance, ai, VG_R_WRONG_ORDER, (int)x, values, allowed & ~end);
      return;
    }
    /* A pre-site event after the site: it starts the next pass through the
     * sequence once this one is complete, and is ignored before that. */
    if (!(au->events[alt->cur].flags & VIGIL_EF_FINAL))
      return;
    restart(alt);
    if (!au->is_static)
      return; /* back to recording; the store already has x */
  } else if (ev->flags & VIGIL_EF_POST_SITE) {
    alt->early |= bit(x);
    return;
  } else {
    restart(alt);
  }
  if (au->events[0].successors & bit(x))
    take(a, au, alt, x, ((struct vg_header *)instance)->clock);
}

/* ---- the backward walk at the site (non-static automata) ----------------- */
struct walk {
  const struct vigil_automaton *au;
  unsigned pos;         /* earliest event of the path matched so far */
  uint64_t used;        /* events on the path */
  uint64_t fed;         /* events seen by the walk */
  uint64_t path_start;  /* timestamp of `pos`'s occurrence */
  uint64_t latest_post; /* newest post-site occurrence, 0 if none */
  int latest_post_event;
  int stopped_by;       /* occurrence that could not extend the path */
};

static int walk_step(void *ctx, uint8_t e, uint64_t ts) {
  struct walk *w = ctx;
  const struct vigil_event_desc *ev = &w->au->events[e];
  w->fed |= bit(e);
  if (ev->flags & VIGIL_EF_POST_SITE) {
    if (!w->latest_post) {
      w->latest_post = ts;
      w->latest_post_event = e;
    }
    return 1;
  }
  if (!(w->used & bit(e)) && ((ev->successors | ev->or_block) & bit(w->pos))) {
    w->used |= bit(e);
    w->pos = e;
    w->path_start = ts;
    return 1;
  }
  w->stopped_by = e;
  return 0;
}

/* Events that may directly precede `pos` and are not on the path yet. */
static uint64_t predecessors(const struct vigil_automaton *au, unsigned pos,
                             uint64_t used) {
  uint64_t m = 0;
  for (unsigned e = 1; e < au->site; e++) {
    const struct vigil_event_desc *ev = &au->events[e];
    if (((ev->successors | ev->or_block) & bit(pos)) && !(used & bit(e)))
      m |= bit(e);
  }
  return m;
}

static void check_site_nonstatic(struct vigil_assertion *a, void *instance,
                                 unsigned ai, const struct vigil_automaton *au,
                                 struct vg_alt *alt, struct vg_header *h) {
  uint64_t keys[VIGIL_MAX_EVENTS][VIGIL_MAX_VALUES];
  uint64_t interest = 0;
  for (unsigned e = 1; e + 1 < au->nevents; e++) {
    if (e == au->site)
      continue;
    vg_key_expected(&au->events[e], h->captures, keys[e]);
    interest |= bit(e);
  }
  struct walk w = {.au = au, .pos = au->site, .path_start = 0,
                   .latest_post_event = -1, .stopped_by = -1};
  uint64_t base = alt->rec_base;
  int r = vg_store_walk(alt, au, h->gen, base,
                        (const uint64_t(*)[VIGIL_MAX_VALUES])keys, interest,
                        walk_step, &w);
  alt->rec_base = h->clock; /* the next arrival needs fresh occurrences */
  int complete = (au->events[0].successors & bit(w.pos)) != 0;
  uint64_t end = bit(au->nevents - 1u);
  if (!complete) {
    if (r < 0 && w.stopped_by < 0) {
      /* the history was truncated before the walk could finish */
      h->dropped = 1;
      return;
    }
    uint64_t need = predecessors(au, w.pos, w.used);
    /* name the nearest required event before pos; it is "missing" unless it
     * happened (with the captured values) since the window began */
    int ev = -1;
    for (unsigned e = 0; e < au->nevents; e++)
      if ((need & bit(e)) && !(au->events[e].flags & VIGIL_EF_OPTIONAL))
        ev = (int)e;
    if (ev < 0 && need)
      ev = (int)(63 - __builtin_clzll(need));
    int reason = VG_R_MISSING_BEFORE_SITE;
    if (ev >= 0) {
      uint64_t element = bit((unsigned)ev) | au->events[ev].or_block;
      for (unsigned e = 1; e < au->site; e++)
        if ((element & bit(e)) && vg_store_seen(alt, h->gen, base, (uint8_t)e, keys[e]))
          reason = VG_R_WRONG_ORDER;
    }
    if (a->mode == VIGIL_MODE_STRICT && w.stopped_by >= 0)
      reason = VG_R_UNEXPECTED_EVENT;
    fail(a, instance, ai, reason, ev, NULL, need & ~end);
    return;
  }
  if (a->mode == VIGIL_MODE_STRICT && (w.stopped_by >= 0 || w.latest_post)) {
    /* strict: every occurrence in the bound must lie on the path */
    fail(a, instance, ai, VG_R_UNEXPECTED_EVENT,
         w.stopped_by >= 0 ? w.stopped_by : w.latest_post_event, NULL,
         au->events[0].successors & ~end);
    return;
  }
  if (w.latest_post && (w.used == 0 || w.latest_post > w.path_start)) {
    fail(a, instance, ai, VG_R_EARLY_EVENT, w.latest_post_event, NULL, 0);
    return;
  }
  alt->cur = au->site;
  alt->seen = 0;
  const struct vigil_event_desc *site = &au->events[au->site];
  if ((site->flags & VIGIL_EF_FINAL) && a->mode == VIGIL_MODE_GUIDELINE)
    alt->status |= VG_ALT_DISABLED;
}

static void check_site_static(struct vigil_assertion *a, void *instance,
                              unsigned ai, const struct vigil_automaton *au,
                              struct vg_alt *alt) {
  unsigned site = au->site;
  uint64_t end = bit(au->nevents - 1u);
  uint64_t allowed = allowed_from(au, alt);
  uint64_t ever = alt->ever;
  alt->ever = 0; /* the next arrival's window starts here */
  if (allowed & bit(site)) {
    if (alt->early) {
      fail(a, instance, ai, VG_R_EARLY_EVENT, (int)lowest(alt->early), NULL, 0);
      return;
    }
    take(a, au, alt, site, ((struct vg_header *)instance)->clock);
    return;
  }
  uint64_t need = allowed & ~end & ~bit(site);
  int ev = -1;
  for (unsigned e = 0; e < au->nevents; e++)
    if ((need & bit(e)) && !(au->events[e].flags & VIGIL_EF_OPTIONAL)) {
      ev = (int)e;
      break;
    }
  if (ev < 0 && need)
    ev = (int)lowest(need);
  /* "missing" unless the named event (or its OR block) happened since the
   * window began, in which case it came in the wrong order */
  int reason = VG_R_MISSING_BEFORE_SITE;
  if (ev >= 0 && (ever & (bit((unsigned)ev) | au->events[ev].or_block)))
    reason = VG_R_WRONG_ORDER;
  fail(a, instance, ai, reason, ev, NULL, need);
}

/* ---- entry points -------------------------------------------------------- */

void vg_engine_bound_start(struct vigil_assertion *a, void *instance) {
  (void)a;
  struct vg_header *h = instance;
  if (h->depth++ > 0)
    return;
  if (++h->gen == 0)
    h->gen = 1;
  h->dropped = 0;
  h->reported = 0;
}

void vg_engine_site(struct vigil_assertion *a, void *instance,
                    const uint64_t *captures) {
  struct vg_header *h = instance;
  if (h->depth == 0 || h->dropped)
    return;
  if (a->ncaptures) {
    if (!h->captures) {
      h->captures = vg_alloc(sizeof(uint64_t) * VIGIL_MAX_CAPTURES,
                             a->locality == VIGIL_GLOBAL);
      if (!h->captures) {
        h->dropped = 1;
        return;
      }
    }
    memcpy(h->captures, captures, sizeof(uint64_t) * a->ncaptures);
  }
  h->site_gen = h->gen;
  h->events++;
  for (unsigned ai = 0; ai < a->nalternatives; ai++) {
    const struct vigil_automaton *au = &a->alternatives[ai];
    struct vg_alt *alt = touch(h, instance, ai);
    if (alt->status & VG_ALT_DISABLED)
      continue;
    alt->status |= VG_ALT_SITE;
    if (past_site(au, alt)) {
      /* Reached again.  Pending obligations after the site stay pending;
       * a complete pass starts over (conditional mode). */
      if (!(au->events[alt->cur].flags & VIGIL_EF_FINAL))
        continue;
      if (a->mode == VIGIL_MODE_STRICT) {
        fail(a, instance, ai, VG_R_UNEXPECTED_EVENT, (int)au->site, NULL,
             au->events[alt->cur].successors & ~bit(au->nevents - 1u));
        continue;
      }
      restart(alt);
    }
    if (au->is_static)
      check_site_static(a, instance, ai, au, alt);
    else
      check_site_nonstatic(a, instance, ai, au, alt, h);
  }
}

void vg_engine_event(struct vigil_assertion *a, void *instance, unsigned ai,
                     unsigned x, const uint64_t *values) {
  struct vg_header *h = instance;
  if (h->depth == 0 || h->dropped || ai >= a->nalternatives)
    return;
  const struct vigil_automaton *au = &a->alternatives[ai];
  if (x == 0 || x + 1u >= au->nevents || x == au->site)
    return;
  struct vg_alt *alt = touch(h, instance, ai);
  if (alt->status & VG_ALT_DISABLED)
    return;
  h->events++;
  const struct vigil_event_desc *ev = &au->events[x];
  if (au->is_static) {
    alt->ever |= bit(x);
    forward(a, instance, ai, au, alt, x, values);
    return;
  }
  uint64_t key[VIGIL_MAX_VALUES];
  vg_key_observed(ev, values, key);
  if (!past_site(au, alt) || !(ev->flags & VIGIL_EF_POST_SITE)) {
    /* Recording: everything before the site, and pre-site events after it
     * (they may begin the next pass). */
    if (vg_store_record(alt, a->locality == VIGIL_GLOBAL, h->gen, (uint8_t)x,
                        ++h->clock, key) < 0) {
      h->dropped = 1;
      return;
    }
    if (!past_site(au, alt))
      return;
  }
  /* Promoted: the captured values are known; other values are not ours. */
  if (!(ev->flags & VIGIL_EF_STATIC)) {
    uint64_t want[VIGIL_MAX_VALUES];
    vg_key_expected(ev, h->captures, want);
    if (memcmp(key, want, sizeof key) != 0)
      return;
  }
  alt->ever |= bit(x);
  forward(a, instance, ai, au, alt, x, values);
}

void vg_engine_bound_end(struct vigil_assertion *a, void *instance) {
  struct vg_header *h = instance;
  if (h->depth == 0)
    return; /* an exit without an entry: ignore */
  if (--h->depth > 0)
    return;
  for (unsigned ai = 0; ai < a->nalternatives; ai++) {
    const struct vigil_automaton *au = &a->alternatives[ai];
    struct vg_alt *alt = &vg_alts(instance)[ai];
    if (h->dropped)
      break;
    uint64_t end = bit(au->nevents - 1u);
    if (alt->gen != h->gen) {
      /* nothing happened in this bound */
      if (a->mode == VIGIL_MODE_STRICT) {
        alt = touch(h, instance, ai);
        fail(a, instance, ai, VG_R_SITE_NOT_REACHED, (int)au->site, NULL,
             au->events[0].successors & ~end);
      }
      continue;
    }
    if (alt->status & (VG_ALT_FAILED | VG_ALT_DISABLED))
      continue;
    const struct vigil_event_desc *cur = &au->events[alt->cur];
    if (cur->flags & VIGIL_EF_FINAL && past_site(au, alt))
      continue;
    if (past_site(au, alt)) {
      uint64_t need = allowed_from(au, alt) & ~end;
      int ev = need ? (int)lowest(need) : -1;
      fail(a, instance, ai, VG_R_MISSING_AFTER_SITE, ev, NULL, need);
    } else if (a->mode == VIGIL_MODE_STRICT) {
      fail(a, instance, ai, VG_R_SITE_NOT_REACHED, (int)au->site, NULL,
           allowed_from(au, alt) & ~end);
    }
  }
  if (a->nalternatives > 1 && !h->dropped)
    vg_report_group(a, instance);
  int passed = h->site_gen == h->gen && !h->reported && !h->dropped;
  vg_stats_flush_bound(a, h, passed);
}
