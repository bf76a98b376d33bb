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

/* Whether the alternative runs forward: every pre-site event is static, so
 * nothing needs a temporal store before the site (post-site events that
 * carry captured values are compared with the captures once known). */
static int forward_capable(const struct vigil_automaton *au) {
  if (au->is_static)
    return 1;
  for (unsigned e = 1; e < au->site; e++)
    if (!(au->events[e].flags & VIGIL_EF_STATIC))
      return 0;
  return 1;
}

/* Take an alternative's state back from the inline fast path (its byte in
 * header.fast, vigil/fastpath.h).  The fast path does not keep `ever`
 * (events seen since the window began, used only to word a failure as
 * "wrong order" rather than "missing"): it is rebuilt as every event
 * between the window's start and the current one.  That can add optional
 * events that were skipped, which a report never names (the event named is
 * always a required one). */
static void reclaim(const struct vigil_assertion *a, struct vg_header *h,
                    unsigned ai, struct vg_alt *alt) {
  unsigned f = h->fast[ai];
  if (!f)
    return;
  h->fast[ai] = 0;
  const struct vigil_automaton *au = &a->alternatives[ai];
  unsigned site = au->site;
  if (f == au->nevents + 1u) {
    alt->status |= VG_ALT_DISABLED | VG_ALT_SITE;
    return;
  }
  unsigned cur = f - 1, lo = cur >= site ? site : 0;
  alt->cur = (uint8_t)cur;
  alt->seen = 0;
  alt->early = 0;
  uint64_t upto = cur >= 63 ? ~0ull : bit(cur + 1) - 1;
  uint64_t range = upto & ~(bit(lo + 1) - 1) & ~bit(site);
  if (cur >= site) {
    /* the site (inline or not) began a new window: only what follows it */
    alt->status |= VG_ALT_SITE;
    alt->ever = range;
  } else {
    alt->ever |= range;
  }
}

/* The alternative's state for the current bound, initialised on first use. */
static struct vg_alt *touch(const struct vigil_assertion *a, struct vg_header *h,
                            unsigned i) {
  struct vg_alt *alt = &vg_alts(h)[i];
  if (alt->gen != h->gen) {
    alt->gen = h->gen;
    alt->cur = 0;
    alt->status = 0;
    alt->seen = 0;
    alt->early = 0;
    alt->ever = 0;
    alt->rec_base = h->clock; /* forget occurrences of earlier bounds */
  }
  reclaim(a, h, i, alt);
  return alt;
}

/* Once settled, the second bound has nothing to do for this instance. */
static void settle_instance(struct vigil_bound *b, struct vg_header *h, int passed) {
  if (h->settled)
    return;
  h->settled = 1;
  if (b->pending)
    b->pending--;
  if (passed)
    h->passes++;
}

/* Hand the state back to the inline fast path when it is plain again, and
 * settle single-alternative instances that are done. */
static void handback(const struct vigil_assertion *a, struct vigil_bound *b,
                     struct vg_header *h, unsigned ai, struct vg_alt *alt) {
  const struct vigil_automaton *au = &a->alternatives[ai];
  int disabled = (alt->status & VG_ALT_DISABLED) != 0;
  if (a->nalternatives == 1 && disabled && !h->dropped)
    settle_instance(b, h, !h->reported);
  if (!a->fast || h->dropped || alt->seen || alt->early)
    return;
  struct vg_assertion_rt *rt = a->runtime;
  if (!rt || !rt->fast_init[ai])
    return;
  /* No early occurrence is pending, so none recorded so far can matter:
   * the inline path may begin a new attempt without telling us. */
  alt->rec_base = h->clock;
  if (disabled)
    h->fast[ai] = (uint8_t)(au->nevents + 1u);
  else if (!(alt->status & VG_ALT_FAILED))
    h->fast[ai] = (uint8_t)(alt->cur + 1u);
}

/* First event of the assertion in this bound: join the bound's touched list
 * (the inline fast path does the same, vigil/abi.h). */
static void touch_instance(struct vigil_assertion *a, struct vigil_bound *b,
                           struct vg_header *h) {
  if (h->gen == b->gen)
    return;
  struct vg_assertion_rt *rt = vg_rt(a);
  if (h->gen == 0) {
    h->assertion = a;
    vg_stats_register(a, h, a->locality == VIGIL_GLOBAL);
  }
  h->gen = b->gen;
  h->next = b->touched;
  b->touched = h;
  for (unsigned i = 0; i < 8; i++)
    h->fast[i] = a->fast && rt ? rt->fast_init[i] : 0;
  h->settled = h->dropped = h->reported = h->site = 0;
  h->bounds++;
  b->pending++;
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
  if (alt->cur == 0 && a->mode != VIGIL_MODE_STRICT) {
    /* A new attempt begins.  (Strict mode has one attempt per bound: an
     * early event is unexpected whenever it came.) */
    alt->early = 0;
    alt->rec_base = clock;
  }
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
    if (!forward_capable(au))
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
    vg_key_expected(&au->events[e], vg_captures(a, instance), keys[e]);
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

/* The first post-site event that came before the site in this attempt,
 * or -1.  Static ones are certain; those carrying captured values were
 * recorded and count only if their values are the captured ones. */
static int early_event(struct vg_header *h, const struct vigil_automaton *au,
                       struct vg_alt *alt, const uint64_t *captures) {
  for (uint64_t m = alt->early; m; m &= m - 1) {
    unsigned x = lowest(m);
    const struct vigil_event_desc *ev = &au->events[x];
    if (ev->flags & VIGIL_EF_STATIC)
      return (int)x;
    uint64_t key[VIGIL_MAX_VALUES];
    vg_key_expected(ev, captures, key);
    if (vg_store_seen(alt, h->gen, alt->rec_base, (uint8_t)x, key))
      return (int)x;
  }
  return -1;
}

static void check_site_static(struct vigil_assertion *a, void *instance,
                              unsigned ai, const struct vigil_automaton *au,
                              struct vg_alt *alt) {
  struct vg_header *h = instance;
  unsigned site = au->site;
  uint64_t end = bit(au->nevents - 1u);
  uint64_t allowed = allowed_from(au, alt);
  uint64_t ever = alt->ever;
  alt->ever = 0; /* the next arrival's window starts here */
  if (alt->early && a->mode == VIGIL_MODE_STRICT) {
    /* Strict: an event after the site that came before it was not a
     * transition; with captured values it is known to be ours only now. */
    int early = early_event(h, au, alt, vg_captures(a, instance));
    if (early >= 0) {
      fail(a, instance, ai, VG_R_UNEXPECTED_EVENT, early, NULL, allowed & ~end);
      return;
    }
  }
  if (allowed & bit(site)) {
    int early = alt->early ? early_event(h, au, alt, vg_captures(a, instance)) : -1;
    alt->early = 0;
    alt->rec_base = h->clock;
    if (early >= 0) {
      fail(a, instance, ai, VG_R_EARLY_EVENT, early, NULL, 0);
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

/* bound.gen is odd inside the bound, even outside (vigil/abi.h): the
 * inline path tells "inside and touched" with one comparison. */
void vg_engine_bound_enter(struct vigil_bound *b) {
  if (b->depth++ > 0)
    return;
  b->gen++;
  b->touched = NULL;
}

void vg_engine_site(struct vigil_assertion *a, struct vigil_bound *b,
                    void *instance, const uint64_t *captures) {
  struct vg_header *h = instance;
  if (b->depth == 0)
    return;
  if (captures && a->ncaptures)
    memcpy(vg_captures(a, instance), captures, sizeof(uint64_t) * a->ncaptures);
  touch_instance(a, b, h);
  if (h->dropped)
    return;
  h->site = 1;
  h->events++;
  for (unsigned ai = 0; ai < a->nalternatives; ai++) {
    const struct vigil_automaton *au = &a->alternatives[ai];
    struct vg_alt *alt = touch(a, h, ai);
    if (alt->status & VG_ALT_DISABLED) {
      handback(a, b, h, ai, alt);
      continue;
    }
    alt->status |= VG_ALT_SITE;
    if (past_site(au, alt)) {
      /* Reached again.  Pending obligations after the site stay pending;
       * a complete pass starts over (conditional mode). */
      if (!(au->events[alt->cur].flags & VIGIL_EF_FINAL)) {
        handback(a, b, h, ai, alt);
        continue;
      }
      if (a->mode == VIGIL_MODE_STRICT) {
        fail(a, instance, ai, VG_R_UNEXPECTED_EVENT, (int)au->site, NULL,
             au->events[alt->cur].successors & ~bit(au->nevents - 1u));
        handback(a, b, h, ai, alt);
        continue;
      }
      restart(alt);
    }
    if (forward_capable(au))
      check_site_static(a, instance, ai, au, alt);
    else
      check_site_nonstatic(a, instance, ai, au, alt, h);
    handback(a, b, h, ai, alt);
  }
}

static void event(struct vigil_assertion *a, void *instance, unsigned ai,
                  const struct vigil_automaton *au, struct vg_alt *alt,
                  unsigned x, const uint64_t *values) {
  struct vg_header *h = instance;
  const struct vigil_event_desc *ev = &au->events[x];
  if (au->is_static) {
    alt->ever |= bit(x);
    forward(a, instance, ai, au, alt, x, values);
    return;
  }
  uint64_t key[VIGIL_MAX_VALUES];
  if (forward_capable(au)) {
    if (!(ev->flags & VIGIL_EF_STATIC)) {
      vg_key_observed(ev, values, key);
      if (!past_site(au, alt)) {
        /* A post-site event before the site: whether it is ours is known
         * only at the site.  Remember it (counts only within this attempt,
         * see take()). */
        if (vg_store_record(alt, a->locality == VIGIL_GLOBAL, h->gen, (uint8_t)x,
                            ++h->clock, key) < 0) {
          h->dropped = 1;
          return;
        }
        alt->early |= bit(x);
        return;
      }
      uint64_t want[VIGIL_MAX_VALUES];
      vg_key_expected(ev, vg_captures(a, instance), want);
      if (memcmp(key, want, sizeof key) != 0)
        return; /* other values: not this instance's event */
    }
    alt->ever |= bit(x);
    forward(a, instance, ai, au, alt, x, values);
    return;
  }
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
    vg_key_expected(ev, vg_captures(a, instance), want);
    if (memcmp(key, want, sizeof key) != 0)
      return;
  }
  alt->ever |= bit(x);
  forward(a, instance, ai, au, alt, x, values);
}

void vg_engine_event(struct vigil_assertion *a, struct vigil_bound *b,
                     void *instance, unsigned ai, unsigned x,
                     const uint64_t *values) {
  struct vg_header *h = instance;
  if (b->depth == 0 || ai >= a->nalternatives)
    return;
  const struct vigil_automaton *au = &a->alternatives[ai];
  if (x == 0 && a->mode == VIGIL_MODE_STRICT) {
    /* The pass reports the first bound to strict assertions: the second
     * bound must check them even if none of their events happens. */
    touch_instance(a, b, h);
    return;
  }
  if (x == 0 || x + 1u >= au->nevents || x == au->site)
    return;
  touch_instance(a, b, h);
  if (h->dropped)
    return;
  struct vg_alt *alt = touch(a, h, ai);
  if (!(alt->status & VG_ALT_DISABLED)) {
    h->events++;
    event(a, instance, ai, au, alt, x, values);
  }
  handback(a, b, h, ai, alt);
}

/* The end of the outermost bound for one instance the runtime must look at. */
static void instance_end(struct vigil_assertion *a, struct vg_header *h) {
  void *instance = h;
  int site = h->site;
  for (unsigned ai = 0; ai < a->nalternatives && !h->dropped; ai++) {
    const struct vigil_automaton *au = &a->alternatives[ai];
    struct vg_alt *alt = &vg_alts(instance)[ai];
    uint64_t end = bit(au->nevents - 1u);
    if (alt->gen != h->gen && !h->fast[ai]) {
      /* nothing happened in this bound */
      if (a->mode == VIGIL_MODE_STRICT) {
        alt = touch(a, h, ai);
        fail(a, instance, ai, VG_R_SITE_NOT_REACHED, (int)au->site, NULL,
             au->events[0].successors & ~end);
      }
      continue;
    }
    alt = touch(a, h, ai);
    if (alt->status & VG_ALT_SITE)
      site = 1;
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
  if (site && !h->reported && !h->dropped)
    h->passes++;
  h->settled = 1;
  vg_stats_flush_bound(a, h);
}

void vg_engine_settle(struct vigil_bound *b) {
  /* The caller keeps depth at 1 while this runs: a violation handler that
   * re-enters the bound nests in it instead of starting a new one. */
  for (struct vg_header *h = b->touched; h; h = h->next)
    if (!h->settled)
      instance_end(h->assertion, h);
  b->pending = 0;
}
