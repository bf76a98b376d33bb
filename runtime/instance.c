/*
 * instance.c — what the runtime does for one instance: touching it in a
 * bound, taking alternatives back from the inline fast path and handing
 * them back, routing events and sites to the pre-site state, the recorder
 * or the keyed checks, and the end of the bound.
 *
 * Fast path interplay (vigil/abi.h, vigil/fastpath.h): header.fast[alt] is
 * 0 when the runtime owns the alternative, else DFA state + 1 or "done".
 * The inline path never applies an event it passes to the runtime, so the
 * runtime first reclaims every alternative in a fast state (ever[] is
 * already kept in the header), does the work, and hands an alternative back
 * when it is plain again: forward, at most one check whose tuple is the
 * instance's captured values, nothing recorded, no free variables.
 */
#include <string.h>

#include "internal.h"

static struct vg_check *check0(struct vg_alt *alt) {
  return alt->nchecks ? &alt->x->checks[0] : NULL;
}

/* The alternative's state for the current bound, initialised on first use
 * (late initialisation: entering a bound costs O(1)). */
static void alt_init(struct vg_ctx *c) {
  struct vg_alt *alt = c->alt;
  if (alt->gen == c->h->gen)
    return;
  alt->gen = c->h->gen;
  alt->state = 0;
  alt->saved = 0;
  alt->status = 0;
  alt->nchecks = 0;
  alt->saved_ever = 0;
  alt->rec_base = c->h->clock; /* forget occurrences of earlier bounds */
  if (alt->x) {
    alt->x->has_failure = 0;
    vg_store_reset(alt->x->store);
  }
}

/* Take the alternative's state from the inline fast path. */
static void reclaim(struct vg_ctx *c) {
  struct vg_header *h = c->h;
  unsigned f = h->fast[c->ai];
  if (!f)
    return;
  h->fast[c->ai] = 0;
  const struct vigil_automaton *au = &c->a->alternatives[c->ai];
  if (f > au->nstates + 1u)
    return; /* an eager instance outside its bound: nothing to take */
  struct vg_alt *alt = c->alt;
  struct vg_check *k = check0(alt);
  const uint64_t *tuple = vg_captures(c->a, h);
  if (f == au->nstates + 1u) { /* done: checked, nothing left */
    if (!k)
      k = vg_check_new(c, tuple, au->post_start, h->ever[c->ai]);
    if (k)
      k->status |= VG_K_DONE;
    alt->status |= VG_A_SITE;
    return;
  }
  unsigned d = f - 1;
  if (k) {
    k->cand[0].state = (uint16_t)d;
    k->cand[0].ever = h->ever[c->ai];
  } else if (au->states[d].flags & VIGIL_SF_PAST_SITE) {
    /* the inline path took the site with the instance's captured values */
    vg_check_new(c, tuple, d, h->ever[c->ai]);
    alt->status |= VG_A_SITE;
  } else {
    alt->state = (uint16_t)d;
  }
}

void vg_fail_lazily(struct vigil_assertion *a, struct vg_header *h, unsigned ai,
                    unsigned state, unsigned s, const uint64_t *values) {
  struct vg_ctx c = {.a = a, .h = h, .ai = ai, .alt = &vg_alts(h)[ai]};
  alt_init(&c);
  struct vg_alt *alt = c.alt;
  alt->status = VG_A_LAZY;
  alt->state = (uint16_t)state;
  alt->saved_ever = h->ever[ai];
  alt->lazy_symbol = (uint8_t)s;
  unsigned n = s == VIGIL_SYM_SITE ? 0 : a->symbols[s].nvalues;
  for (unsigned i = 0; i < n && i < VG_LAZY_MAX_VALUES; i++)
    alt->lazy_values[i] = values[i];
  h->fast[ai] = 0;
}

/* What the generic engine would have done when the lazy failure happened:
 * the first arrival at the site in a state where it is no transition, or
 * a static event with no transition before the site. */
static void materialise(struct vg_ctx *c) {
  struct vg_alt *alt = c->alt;
  unsigned s = alt->lazy_symbol;
  alt->status &= (uint8_t)~VG_A_LAZY;
  if (s == VIGIL_SYM_SITE) {
    struct vg_check *k = vg_check_new(c, vg_captures(c->a, c->h), alt->state,
                                      alt->saved_ever);
    if (k)
      vg_check_event(c, k, VIGIL_SYM_SITE, NULL);
    alt->status |= VG_A_PRE_FAILED | VG_A_SITE;
    return;
  }
  struct vg_cand cd = {.state = alt->state, .ever = alt->saved_ever};
  struct vg_failure f;
  vg_cand_step(c->a, c->ai, &cd, s, alt->lazy_values, &f);
  alt->status |= VG_A_PRE_FAILED;
  vg_alt_fail(c, &f);
}

static void alt_get(struct vg_ctx *c, struct vigil_assertion *a,
                    struct vigil_bound *b, struct vg_header *h, unsigned ai) {
  c->a = a;
  c->b = b;
  c->h = h;
  c->ai = ai;
  c->alt = &vg_alts(h)[ai];
  alt_init(c);
  if (c->alt->status & VG_A_LAZY)
    materialise(c);
  reclaim(c);
}

/* Hand the alternative back to the inline path when it is plain again. */
static void handback(struct vg_ctx *c) {
  struct vg_assertion_rt *rt = c->a->runtime;
  struct vg_alt *alt = c->alt;
  struct vg_header *h = c->h;
  if (!rt || !rt->fast_init[c->ai] || h->dropped ||
      (alt->status & (VG_A_RECORDING | VG_A_FAILED | VG_A_PRE_FAILED)))
    return;
  const struct vigil_automaton *au = &c->a->alternatives[c->ai];
  if (alt->nchecks == 0) {
    if (!(alt->status & VG_A_SITE))
      h->fast[c->ai] = (uint8_t)(alt->state + 1u);
    return;
  }
  struct vg_check *k = check0(alt);
  if (alt->nchecks > 1 || k->ncand != 1 ||
      memcmp(k->tuple, vg_captures(c->a, h), sizeof(uint64_t) * c->a->ncaptures))
    return;
  if (k->status & VG_K_DONE) {
    h->fast[c->ai] = (uint8_t)(au->nstates + 1u);
  } else {
    h->fast[c->ai] = (uint8_t)(k->cand[0].state + 1u);
    h->ever[c->ai] = k->cand[0].ever;
  }
}

/* Single alternative: settled (nothing left for the second bound) exactly
 * when every check is done — the inline path settles on "done" the same
 * way, and a new tuple at the site unsettles. */
static void sync_settled(struct vigil_assertion *a, struct vigil_bound *b,
                         struct vg_header *h) {
  if (a->nalternatives != 1 || a->eager)
    return; /* eager: the exit decides from the fast state (eager.c) */
  struct vg_alt *alt = &vg_alts(h)[0];
  int want = !h->dropped && !h->reported && alt->nchecks > 0 &&
             !(alt->status & (VG_A_RECORDING | VG_A_FAILED));
  for (unsigned i = 0; want && i < alt->nchecks; i++)
    want = (alt->x->checks[i].status & VG_K_DONE) != 0;
  if (a->mode == VIGIL_MODE_STRICT)
    want = 0;
  if (want && !h->settled) {
    h->settled = 1;
    h->passes++;
    if (b->pending)
      b->pending--;
  } else if (!want && h->settled) {
    h->settled = 0;
    h->passes--;
    b->pending++;
  }
}

/* First event of the assertion in this bound: join the bound's touched list
 * (the inline fast path does the same, vigil/abi.h "Touching").  An eager
 * instance was initialised by the bound's entry: it only takes the bound's
 * gen (which starts the runtime's own state afresh, alt_init) and clears
 * the runtime's flags; it is on no list and in no count. */
static __attribute__((noinline)) void touch_new(struct vigil_assertion *a,
                                                 struct vigil_bound *b,
                                                 struct vg_header *h) {
  if (!h->assertion) { /* its thread's first look (gen may be 0 in a bound:
                           VIGIL_BOUND_ENTRIES) */
    h->assertion = a;
    vg_stats_register(a, h, a->locality == VIGIL_GLOBAL, a->eager ? b : NULL);
  }
  if (h->gen == b->gen)
    return;
  struct vg_assertion_rt *rt = vg_rt(a);
  h->gen = b->gen;
  if (a->eager) {
    h->settled = h->dropped = h->reported = h->site = 0;
    return;
  }
  h->next = b->touched;
  b->touched = h;
  for (unsigned i = 0; i < 8; i++) {
    h->fast[i] = rt && i < a->nalternatives ? rt->fast_init[i] : 0;
    h->ever[i] = 0;
  }
  h->settled = h->dropped = h->reported = h->site = 0;
  vg_log_reset(a, h);
  h->bounds++;
  b->pending++;
}

/* Every call of the runtime for an instance starts here: the common case,
 * already touched in this bound, is two compares (the rest out of line, so
 * that it costs no register saves). */
void vg_instance_touch(struct vigil_assertion *a, struct vigil_bound *b,
                       struct vg_header *h) {
  if (__builtin_expect(h->gen == b->gen && h->assertion, 1))
    return;
  touch_new(a, b, h);
}

void vg_engine_bound_enter(struct vigil_bound *b, void *const *frame) {
  uint32_t depth = b->depth;
  if (depth > 0 && vg_bound_abandoned(b, frame)) {
    vg_bound_abandon(b);
    depth = 0;
  }
  /* atomic: the entry points peek at depth without the lock */
  __atomic_store_n(&b->depth, depth + 1, __ATOMIC_RELAXED);
  if (depth > 0)
    return;
  /* odd: inside; atomic: global groups' inline path peeks at it unlocked */
  __atomic_store_n(&b->gen, b->gen + 1, __ATOMIC_RELAXED);
  b->touched = NULL;
  b->frame = frame;
  b->frame_return = frame ? *frame : NULL;
}

/* Symbol s for one alternative. */
static void alt_event(struct vg_ctx *c, unsigned s, const uint64_t *values) {
  const struct vigil_automaton *au = &c->a->alternatives[c->ai];
  struct vg_alt *alt = c->alt;
  if (alt->status & VG_A_PRE_FAILED)
    return;
  if (vg_records(au, alt)) {
    vg_record(c, s, values);
  } else if (!(alt->status & VG_A_SITE)) {
    if (!(c->a->symbols[s].flags & VIGIL_EF_STATIC) && !(au->pre & vg_bit(s))) {
      /* mixed: whether this event is ours is known at the site only */
      alt->saved = alt->state;
      alt->saved_ever = c->h->ever[c->ai];
      alt->status |= VG_A_RECORDING;
      vg_record(c, s, values);
      return;
    }
    struct vg_cand cd = {.state = alt->state, .ever = c->h->ever[c->ai]};
    struct vg_failure f;
    if (vg_cand_step(c->a, c->ai, &cd, s, values, &f) == VG_STEP_FAIL) {
      alt->status |= VG_A_PRE_FAILED;
      vg_alt_fail(c, &f);
      return;
    }
    alt->state = cd.state;
    c->h->ever[c->ai] = cd.ever;
    return;
  }
  for (unsigned i = 0; i < alt->nchecks && !c->h->dropped; i++)
    vg_check_event(c, &alt->x->checks[i], s, values);
}

/* An eager instance with several alternatives that the runtime dropped
 * gives every alternative to the runtime: the bound's exit then cannot
 * take one done alternative for a pass (vigil/fastpath.h
 * vigil_fast_end_joint), and every later event comes here and is ignored
 * (nothing hands a dropped instance back). */
static void drop_eager(const struct vigil_assertion *a, struct vg_header *h) {
  if (a->eager && h->dropped)
    for (unsigned ai = 0; ai < a->nalternatives; ai++)
      h->fast[ai] = 0;
}

void vg_engine_event(struct vigil_assertion *a, struct vigil_bound *b,
                     void *instance, unsigned s, const uint64_t *values) {
  struct vg_header *h = instance;
  if (b->depth == 0 || s <= VIGIL_SYM_SITE || s >= a->nsymbols ||
      a->kind == VIGIL_KIND_STRUCT)
    return; /* bounds never change a state; the site has its own entry;
               struct automata arrive through __vigil_object_event */
  if (vg_inline_busy(a, h))
    return;
  vg_instance_touch(a, b, h);
  vg_or_adopt(a, b, h);
  vg_log_drain(a, b, h); /* the events before this one, first */
  if (h->dropped)
    return;
  h->events++;
  if (a->nalternatives == 1 && vg_record_quick(a, h, s, values))
    return;
  const struct vg_assertion_rt *rt = a->runtime;
  uint64_t slow = vg_config.shortcuts && rt && rt->any_fast
                      ? vg_shortcut_event(a, b, h, s, values)
                      : (1ull << a->nalternatives) - 1;
  if (!slow)
    return;
  for (unsigned ai = 0; ai < a->nalternatives && !h->dropped; ai++) {
    if (!(slow & vg_bit(ai)) || !(a->alternatives[ai].alphabet & vg_bit(s)))
      continue;
    struct vg_ctx c;
    alt_get(&c, a, b, h, ai);
    alt_event(&c, s, values);
    if (rt && rt->fast_init[ai])
      handback(&c);
  }
  drop_eager(a, h);
  /* nothing to settle or unsettle while no check exists (recording) */
  if (h->settled || vg_alts(h)[0].nchecks)
    sync_settled(a, b, h);
}

/* The site with `tuple` for one alternative. */
static void alt_site(struct vg_ctx *c, const uint64_t *tuple) {
  const struct vigil_automaton *au = &c->a->alternatives[c->ai];
  struct vg_alt *alt = c->alt;
  if (alt->status & VG_A_PRE_FAILED)
    return;
  struct vg_check *k = alt->nchecks ? vg_check_find(c, tuple) : NULL;
  if (!k && alt->nchecks && c->a->mode == VIGIL_MODE_STRICT)
    k = &alt->x->checks[0]; /* strict: one sequence per bound, one site */
  if (k) {
    vg_check_event(c, k, VIGIL_SYM_SITE, NULL);
  } else if (vg_records(au, alt)) {
    vg_replay_site(c, tuple);
  } else if (!(alt->status & VG_A_SITE)) {
    /* a forward alternative's first arrival decides phase 1 for all */
    k = vg_check_new(c, tuple, alt->state, c->h->ever[c->ai]);
    if (k) {
      vg_check_event(c, k, VIGIL_SYM_SITE, NULL);
      if (k->status & VG_K_FAILED)
        alt->status |= VG_A_PRE_FAILED;
    }
  } else {
    /* Pre is static: another tuple's phase 1 went the same way */
    k = vg_check_new(c, tuple, au->post_start, 0);
    if (k && vg_is_done(c->a, c->ai, au->post_start))
      k->status |= VG_K_DONE;
  }
  alt->status |= VG_A_SITE;
}

void vg_engine_site(struct vigil_assertion *a, struct vigil_bound *b,
                    void *instance, const uint64_t *captures) {
  struct vg_header *h = instance;
  if (b->depth == 0 || a->kind == VIGIL_KIND_STRUCT)
    return;
  if (vg_inline_busy(a, h))
    return;
  vg_instance_touch(a, b, h);
  vg_or_adopt(a, b, h);
  vg_log_drain(a, b, h); /* the events before this one, first */
  if (h->dropped)
    return;
  h->events++;
  const struct vg_assertion_rt *rt = a->runtime;
  if (vg_config.shortcuts && rt && rt->any_fast && vg_shortcut_site(a, b, h, captures))
    return;
  h->site = 1;
  struct vg_ctx cs[VIGIL_MAX_ALTERNATIVES];
  unsigned checks = 0;
  for (unsigned ai = 0; ai < a->nalternatives; ai++) {
    alt_get(&cs[ai], a, b, h, ai);
    checks += cs[ai].alt->nchecks;
  }
  uint64_t tuple[VIGIL_MAX_CAPTURES] = {0};
  memcpy(tuple, captures ? captures : vg_captures(a, h), sizeof(uint64_t) * a->ncaptures);
  /* The instance's captured values are the first check's tuple, which the
   * inline path compares events and later sites with. */
  if (captures && !checks)
    memcpy(vg_captures(a, h), captures, sizeof(uint64_t) * a->ncaptures);
  for (unsigned ai = 0; ai < a->nalternatives && !h->dropped; ai++) {
    alt_site(&cs[ai], tuple);
    handback(&cs[ai]);
  }
  drop_eager(a, h);
  sync_settled(a, b, h);
}

/* The end of the bound for one alternative. */
static void alt_end(struct vg_ctx *c) {
  struct vg_alt *alt = c->alt;
  for (unsigned i = 0; i < alt->nchecks && !c->h->dropped; i++)
    vg_check_end(c, &alt->x->checks[i]);
  if (alt->nchecks || (alt->status & (VG_A_SITE | VG_A_PRE_FAILED)) ||
      c->a->mode != VIGIL_MODE_STRICT)
    return;
  if (vg_records(&c->a->alternatives[c->ai], alt)) {
    vg_strict_unreached(c);
    return;
  }
  struct vg_cand cd = {.state = alt->state, .ever = c->h->ever[c->ai]};
  struct vg_failure f;
  if (vg_cand_end(c->a, c->ai, &cd, &f))
    vg_alt_fail(c, &f);
}

/* Alternative alt's failure for the checks of `tuple`, NULL if it held. */
static const struct vg_failure *failure_for(const struct vigil_assertion *a,
                                            struct vg_alt *alt, const uint64_t *tuple) {
  if (!alt->x)
    return NULL;
  if (alt->x->has_failure)
    return &alt->x->failure; /* before any site: every tuple failed */
  struct vg_check *ks = alt->x->checks;
  if ((alt->status & VG_A_PRE_FAILED) && alt->nchecks && ks[0].has_last)
    return &ks[0].last; /* a forward phase 1: the same for every tuple */
  for (unsigned i = 0; i < alt->nchecks; i++)
    if (!memcmp(ks[i].tuple, tuple, sizeof(uint64_t) * a->ncaptures))
      return (ks[i].status & VG_K_FAILED) && ks[i].has_last ? &ks[i].last : NULL;
  return NULL;
}

/* Reports the tuple if every alternative failed for it. */
static void report_tuple(struct vigil_assertion *a, struct vg_header *h,
                         const uint64_t *tuple) {
  const struct vg_failure *fs[VIGIL_MAX_ALTERNATIVES];
  for (unsigned i = 0; i < a->nalternatives; i++)
    if (!(fs[i] = failure_for(a, &vg_alts(h)[i], tuple)))
      return; /* this alternative held: the assertion holds */
  vg_report(a, h, fs, a->nalternatives);
}

/* Top-level OR: the assertion fails for a tuple when every alternative
 * failed for it (each tuple that reached the site is its own check). */
static void report_group(struct vigil_assertion *a, struct vg_header *h) {
  static const uint64_t none[VIGIL_MAX_CAPTURES];
  int any = 0;
  unsigned whole = 0; /* alternatives that failed for every tuple */
  for (unsigned i = 0; i < a->nalternatives; i++)
    whole += vg_alts(h)[i].x && vg_alts(h)[i].x->has_failure;
  if (whole == a->nalternatives) {
    report_tuple(a, h, none); /* once, whatever the tuples */
    return;
  }
  size_t bytes = sizeof(uint64_t) * a->ncaptures;
  for (unsigned i = 0; i < a->nalternatives; i++) {
    struct vg_alt *alt = &vg_alts(h)[i];
    for (unsigned j = 0; j < alt->nchecks; j++) {
      const uint64_t *t = alt->x->checks[j].tuple;
      int seen = 0;
      for (unsigned p = 0; p <= i && !seen; p++) {
        struct vg_alt *q = &vg_alts(h)[p];
        for (unsigned r = 0; r < (p == i ? j : q->nchecks) && !seen; r++)
          seen = !memcmp(q->x->checks[r].tuple, t, bytes);
      }
      if (!seen)
        report_tuple(a, h, t);
      any = 1;
    }
  }
  if (!any)
    report_tuple(a, h, none);
}

void vg_instance_end(struct vigil_assertion *a, struct vigil_bound *b,
                     struct vg_header *h) {
  const struct vg_assertion_rt *rt = a->runtime;
  vg_or_adopt(a, NULL, h); /* never settled here: only dead states */
  if (vg_config.shortcuts && rt && rt->any_fast && !h->dropped && vg_shortcut_end(a, h))
    return;
  int site = h->site;
  for (unsigned ai = 0; ai < a->nalternatives && !h->dropped; ai++) {
    struct vg_ctx c;
    alt_get(&c, a, b, h, ai);
    alt_end(&c);
    site |= (c.alt->status & VG_A_SITE) != 0;
  }
  if (a->nalternatives > 1 && !h->dropped)
    report_group(a, h);
  if (site && !h->reported && !h->dropped)
    h->passes++;
  h->settled = 1;
  vg_stats_flush_bound(a, h);
}

void vg_engine_settle(struct vigil_bound *b) {
  /* The caller keeps depth at 1 while this runs: a violation handler that
   * re-enters the bound nests in it instead of starting a new one. */
  for (struct vg_header *h = b->touched; h; h = h->next)
    if (!h->settled && h->assertion) {
      vg_log_drain(h->assertion, b, h);
      vg_instance_end(h->assertion, b, h);
    }
  b->pending = 0;
}
