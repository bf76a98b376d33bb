/*
 * test_engine.c — unit and property tests of libvigil's engine and stores.
 *
 * Traces are strings: '[' enters the bound, ']' leaves it, 'S' reaches the
 * site, an upper-case letter is that event carrying the captured value, a
 * lower-case letter the same event with another value (noise: a non-static
 * automaton must ignore it; the static twin never sees it).
 *
 * Every case runs six ways — static forward engine, non-static with the
 * tags store (Alg. 3.1), non-static with the history store (Alg. 3.2),
 * "mixed" (static before the site, values after it: forward engine with
 * inline value checks), and the static and mixed automata again through a
 * C model of the inline fast path the pass emits (vigil/fastpath.h) — and
 * all must report exactly the expected violations.  A randomised property
 * test then checks that they agree on thousands of traces.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../runtime/internal.h"
#include "automaton_builder.h"
#include "vigil/fastpath.h"
#include "vigil/runtime.h"

static char reported[1024];
static int nreported;

static void record(const struct vigil_violation *v, void *ctx) {
  (void)ctx;
  size_t len = strlen(reported);
  snprintf(reported + len, sizeof reported - len, "%s%s", nreported ? "," : "",
           v->reason);
  nreported++;
}

enum { STATIC_ENGINE, TAGS, HISTORY, MIXED, FAST_STATIC, FAST_MIXED, NCONFIGS };
static const char *const config_names[] = {"static", "tags", "history",
                                           "mixed", "fast", "fast-mixed"};

/* ---- a C model of the code the pass inlines (compiler/pass) ---------------- */
static void model_of(const struct vigil_assertion *a, unsigned ai,
                     struct vigil_fast_model *m, uint64_t *succ, uint64_t *orb,
                     uint8_t *flags) {
  const struct vigil_automaton *au = &a->alternatives[ai];
  for (unsigned e = 0; e < au->nevents; e++) {
    succ[e] = au->events[e].successors;
    orb[e] = au->events[e].or_block;
    flags[e] = au->events[e].flags;
  }
  *m = (struct vigil_fast_model){succ, orb, flags, au->nevents, au->site, a->mode};
}

#define MODEL(a, ai)                                                           \
  uint64_t succ_[VIGIL_MAX_EVENTS], orb_[VIGIL_MAX_EVENTS];                    \
  uint8_t flags_[VIGIL_MAX_EVENTS];                                            \
  struct vigil_fast_model m;                                                   \
  model_of(a, ai, &m, succ_, orb_, flags_)

static void inline_enter(struct vigil_bound *b) {
  uint32_t d = b->depth;
  b->depth = d + 1;
  if (d == 0) {
    b->gen++;
    b->touched = NULL;
  }
}

static void inline_exit(struct vigil_bound *b) {
  uint32_t d = b->depth;
  if (d == 0)
    return;
  if (d == 1) {
    if (b->pending)
      __vigil_bound_settle(b);
    b->gen++;
  }
  b->depth = d - 1;
}

/* Returns 0 when the instance must go to the runtime (first touch). */
static int inline_touch(struct vigil_assertion *a, struct vigil_bound *b,
                        struct vg_header *h) {
  if (h->gen == b->gen)
    return 1;
  if (!(b->gen & 1))
    return -1; /* outside the bound */
  if (h->gen == 0)
    return 0;
  h->gen = b->gen;
  h->next = b->touched;
  b->touched = h;
  for (unsigned i = 0; i < 8; i++) {
    h->fast[i] = 0;
    if (i < a->nalternatives) {
      MODEL(a, i);
      h->fast[i] = (uint8_t)vigil_fast_eligible(&m);
    }
  }
  h->settled = h->dropped = h->reported = h->site = 0;
  h->bounds++;
  b->pending++;
  return 1;
}

static void inline_done(struct vigil_assertion *a, struct vigil_bound *b,
                        struct vg_header *h, unsigned ai, unsigned n) {
  h->fast[ai] = (uint8_t)n;
  if (a->nalternatives == 1 && n == a->alternatives[ai].nevents + 1u) {
    h->settled = 1;
    h->passes++;
    b->pending--;
  }
}

static void inline_event(struct vigil_assertion *a, struct vigil_bound *b,
                         void *instance, unsigned ai, unsigned x, uint64_t value) {
  struct vg_header *h = instance;
  int t = inline_touch(a, b, h);
  if (t < 0)
    return;
  if (t) {
    MODEL(a, ai);
    unsigned n = vigil_fast_next(&m, h->fast[ai], x);
    if (n == VIGIL_FAST_IGNORE)
      return;
    if (n != VIGIL_FAST_SLOW) {
      const struct vigil_event_desc *ev = &a->alternatives[ai].events[x];
      if (ev->nvalues && value != vg_captures(a, instance)[0])
        return; /* not this instance's event */
      inline_done(a, b, h, ai, n);
      return;
    }
  }
  __vigil_event(a, b, instance, (ai << 8) | x, &value);
}

static void inline_site(struct vigil_assertion *a, struct vigil_bound *b,
                        void *instance, const uint64_t *caps) {
  struct vg_header *h = instance;
  int t = inline_touch(a, b, h);
  if (t < 0)
    return;
  memcpy(vg_captures(a, instance), caps, sizeof(uint64_t) * a->ncaptures);
  if (t) {
    unsigned next[VIGIL_MAX_ALTERNATIVES];
    int ok = 1;
    for (unsigned ai = 0; ai < a->nalternatives; ai++) {
      MODEL(a, ai);
      next[ai] = vigil_fast_site(&m, h->fast[ai]);
      ok &= next[ai] != VIGIL_FAST_SLOW;
    }
    if (ok) {
      for (unsigned ai = 0; ai < a->nalternatives; ai++)
        if (next[ai] != VIGIL_FAST_IGNORE)
          inline_done(a, b, h, ai, next[ai]);
      return;
    }
  }
  __vigil_site_reached(a, b, instance, NULL);
}

/* Runs `trace` on `specs`; returns the reasons reported, comma-separated. */
static const char *run(const char *specs, int mode, const char *trace, int config) {
  reported[0] = 0;
  nreported = 0;
  vg_config.algorithm = config == HISTORY ? VG_HISTORY : VG_TAGS;
  int fast = config == FAST_STATIC || config == FAST_MIXED;
  int nonstatic = config == TAGS || config == HISTORY ? 1
                  : config == MIXED || config == FAST_MIXED ? 2 : 0;
  struct built *b = build(specs, mode, nonstatic);
  if (!b) {
    fprintf(stderr, "bad spec %s\n", specs);
    exit(2);
  }
  b->a.fast = (uint8_t)fast;
  static struct vigil_bound bound;
  memset(&bound, 0, sizeof bound);
  uint64_t caps[1] = {7};
  for (const char *p = trace; *p; p++) {
    char c = *p;
    if (c == '[') {
      fast ? inline_enter(&bound) : __vigil_bound_enter(&bound, 0);
      if (mode == VIGIL_MODE_STRICT) /* as the pass does */
        __vigil_event(&b->a, &bound, b->instance, 0, NULL);
    }
    else if (c == ']')
      fast ? inline_exit(&bound) : __vigil_bound_exit(&bound, 0);
    else if (c == 'S')
      fast ? inline_site(&b->a, &bound, b->instance, caps)
           : __vigil_site_reached(&b->a, &bound, b->instance, caps);
    else {
      int noise = c >= 'a' && c <= 'z';
      int letter = (noise ? c - 'a' : c - 'A');
      uint64_t value = noise ? 3 : 7;
      for (unsigned alt = 0; alt < b->a.nalternatives; alt++) {
        int idx = b->letter_index[alt][letter];
        if (idx <= 0)
          continue;
        /* noise carries another value: only events with a value slot can
         * tell it apart (a static event is the same event whatever) */
        if (noise && !b->a.alternatives[alt].events[idx].nvalues)
          continue;
        if (fast)
          inline_event(&b->a, &bound, b->instance, alt, (unsigned)idx, value);
        else
          __vigil_event(&b->a, &bound, b->instance, (alt << 8) | (unsigned)idx, &value);
      }
    }
  }
  /* the instance is ours: unlist it before it goes */
  vg_stats_thread_exit();
  free(b);
  return reported;
}

static int passed, failed;

static void expect(const char *specs, int mode, const char *trace,
                   const char *want) {
  for (int config = 0; config < NCONFIGS; config++) {
    const char *got = run(specs, mode, trace, config);
    if (strcmp(got, want) != 0) {
      printf("FAIL %-22s mode=%d trace=%-16s %-8s want \"%s\" got \"%s\"\n",
             specs, mode, trace, config_names[config], want, got);
      failed++;
    } else {
      passed++;
    }
  }
}

#define G VIGIL_MODE_GUIDELINE
#define C VIGIL_MODE_CONDITIONAL
#define X VIGIL_MODE_STRICT

static void semantic_cases(void) {
  /* previously(A) */
  expect("A S", G, "[AS]", "");
  expect("A S", G, "[S]", "missing-before-site");
  expect("A S", G, "[aS]", "missing-before-site");  /* wrong value */
  expect("A S", G, "[aAaS]", "");
  expect("A S", G, "[]", "");                       /* site not reached */
  expect("A S", G, "[A]", "");
  expect("A S", G, "AS[S]", "missing-before-site"); /* outside the bound */
  expect("A S", G, "[AS][S]", "missing-before-site");
  expect("A S", G, "[AS][AS]", "");
  /* guideline: the path twice in one bound is checked once */
  expect("A S", G, "[ASS]", "");
  expect("A S", C, "[ASS]", "missing-before-site");
  expect("A S", C, "[ASAS]", "");
  /* previously(A, B) */
  expect("A B S", G, "[ABS]", "");
  expect("A B S", G, "[AABS]", "");
  expect("A B S", G, "[BABS]", "");
  expect("A B S", G, "[BAS]", "wrong-order");
  expect("A B S", G, "[ABBS]", "wrong-order");
  expect("A B S", G, "[ABAS]", "wrong-order");
  expect("A B S", G, "[AbS]", "missing-before-site");
  expect("A B S", G, "[BS]", "missing-before-site");
  expect("A B S", G, "[AbBS]", "");
  /* optional */
  expect("A B? C S", G, "[ACS]", "");
  expect("A B? C S", G, "[ABCS]", "");
  expect("A B? C S", G, "[ABS]", "missing-before-site");
  expect("A B? C S", G, "[ACBS]", "wrong-order");
  expect("B? S", G, "[S]", "");
  expect("B? S", G, "[BS]", "");
  /* OR blocks: any order, at least one, each once */
  expect("A|B S", G, "[AS]", "");
  expect("A|B S", G, "[BS]", "");
  expect("A|B S", G, "[ABS]", "");
  expect("A|B S", G, "[BAS]", "");
  expect("A|B S", G, "[S]", "missing-before-site");
  expect("X A|B S", G, "[XBAS]", "");
  expect("X A|B S", G, "[XS]", "missing-before-site");
  expect("X A|B S", G, "[AXS]", "wrong-order");
  /* eventually(B) */
  expect("S B", G, "[SB]", "");
  expect("S B", G, "[S]", "missing-after-site");
  expect("S B", G, "[Sb]", "missing-after-site");
  expect("S B", G, "[BS]", "event-before-site"); /* one report per bound */
  expect("S B", G, "[bSB]", "");
  expect("S B C", G, "[SBC]", "");
  expect("S B C", G, "[SCB]", "wrong-order");
  expect("S B C", G, "[SB]", "missing-after-site");
  /* TSEQUENCE(A, site, B) */
  expect("A S B", G, "[ASB]", "");
  expect("A S B", G, "[ABS]", "event-before-site");
  expect("A S B", G, "[BASB]", "");
  expect("A S B", G, "[AS]", "missing-after-site");
  /* strict */
  expect("A S", X, "[AS]", "");
  expect("A S", X, "[]", "site-not-reached");
  expect("A S", X, "[A]", "site-not-reached");
  expect("A B S", X, "[ABS]", "");
  expect("A B S", X, "[AABS]", "unexpected-event");
  expect("A S B", X, "[ASB]", "");
  expect("A S B", X, "[ASBB]", "unexpected-event");
  /* top-level OR: fails only when no alternative holds */
  expect("A S#B S", G, "[AS]", "");
  expect("A S#B S", G, "[BS]", "");
  expect("A S#B S", G, "[S]", "no-alternative-held");
  expect("A S#S B", G, "[SB]", "");
  expect("A S#S B", G, "[S]", "no-alternative-held");
  /* recursion: only the outermost bound counts */
  expect("A S", G, "[A[S]]", "");
  expect("A S", G, "[[S]A]", "missing-before-site");
}

/* ---- property: the three configurations agree ------------------------------ */
static unsigned long long rng = 88172645463325252ull;
static unsigned rnd(unsigned n) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (unsigned)(rng % n);
}

static void random_spec(char *out) {
  int nel = 1 + (int)rnd(4), site_at = (int)rnd((unsigned)nel + 1);
  char letter = 'A';
  out[0] = 0;
  for (int i = 0; i <= nel; i++) {
    if (i == site_at) {
      strcat(out, out[0] ? " S" : "S");
      continue;
    }
    char el[16] = "";
    int k = rnd(4) == 0 ? 2 : 1;
    for (int j = 0; j < k; j++) {
      if (letter == 'S')
        letter++;
      size_t l = strlen(el);
      if (j)
        el[l++] = '|';
      el[l++] = letter++;
      el[l] = 0;
    }
    if (k == 1 && rnd(4) == 0)
      strcat(el, "?");
    if (out[0])
      strcat(out, " ");
    strcat(out, el);
  }
}

static void property_agreement(int rounds) {
  int disagreements = 0, tolerated = 0, fast_disagreements = 0;
  for (int r = 0; r < rounds; r++) {
    char spec[64], trace[64];
    random_spec(spec);
    int nletters = 0;
    for (const char *p = spec; *p; p++)
      if (*p >= 'A' && *p <= 'Z' && *p != 'S')
        nletters++;
    int mode = (int)rnd(3);
    int len = 2 + (int)rnd(12), t = 0;
    trace[t++] = '[';
    for (int i = 0; i < len; i++) {
      unsigned k = rnd((unsigned)nletters + 2);
      if (k == (unsigned)nletters)
        trace[t++] = 'S';
      else if (k == (unsigned)nletters + 1)
        trace[t++] = (char)('a' + rnd((unsigned)nletters)); /* noise */
      else
        trace[t++] = (char)('A' + k + (k >= 18)); /* skip 'S' */
    }
    trace[t++] = ']';
    trace[t] = 0;
    char results[NCONFIGS][1024];
    for (int c = 0; c < NCONFIGS; c++)
      snprintf(results[c], sizeof results[c], "%s", run(spec, mode, trace, c));
    /* The forward engines (static, mixed, and both through the inline fast
     * path) must agree exactly, reasons included. */
    for (int c = MIXED; c < NCONFIGS; c++)
      if (strcmp(results[c], results[c == FAST_STATIC ? STATIC_ENGINE : MIXED]) != 0 &&
          fast_disagreements++ < 10)
        printf("DISAGREE %-20s mode=%d trace=%-16s static=\"%s\" %s=\"%s\"\n", spec,
               mode, trace, results[STATIC_ENGINE], config_names[c], results[c]);
    if (mode == VIGIL_MODE_STRICT) {
      /* Before the site a non-static automaton cannot tell an unexpected
       * event from noise; strict violations found there surface at the site
       * or the bound's end, with another reason.  Whether the bound fails,
       * and how often, must still agree. */
      for (int c = 0; c < NCONFIGS; c++) {
        int n = results[c][0] ? 1 : 0;
        for (const char *q = results[c]; *q; q++)
          n += *q == ',';
        snprintf(results[c], sizeof results[c], "%d report(s)", n);
      }
    }
    /* When several events are missing, the forward engine names the first
     * one after its state and the backward walk the nearest one before the
     * site; one may have happened out of order and the other not at all.
     * Both are violations before the site: compare that class. */
    if (strcmp(results[MIXED], results[STATIC_ENGINE]) != 0 && fast_disagreements++ < 10)
      printf("DISAGREE %-20s mode=%d trace=%-16s static=\"%s\" mixed=\"%s\"\n", spec,
             mode, trace, results[STATIC_ENGINE], results[MIXED]);
    for (int c = 0; c < 3; c++) {
      char *q;
      while ((q = strstr(results[c], "wrong-order")))
        memcpy(q, "before-site", 11);
      while ((q = strstr(results[c], "missing-before-site")))
        memmove(q, q + 8, strlen(q + 8) + 1);
    }
    if (strcmp(results[1], results[2]) == 0 && strcmp(results[0], results[1]) != 0 &&
        strchr(spec, '|') && (strstr(results[0], "event-before-site") != NULL) !=
                                 (strstr(results[1], "event-before-site") != NULL)) {
      /* Known, documented divergence (docs/assertion-language.md, "OR
       * blocks"): when a member of an OR block repeats, the forward engine
       * restarts the attempt at the repeat while the backward walk keeps the
       * newest members of the block, so they can disagree on whether a
       * post-site event fell inside the attempt. */
      tolerated++;
      continue;
    }
    if (strcmp(results[0], results[1]) || strcmp(results[0], results[2])) {
      if (disagreements++ < 10)
        printf("DISAGREE %-20s mode=%d trace=%-16s static=\"%s\" tags=\"%s\" history=\"%s\"\n",
               spec, mode, trace, results[0], results[1], results[2]);
    }
  }
  printf("property: %d random traces, %d known OR-repeat divergences tolerated\n",
         rounds, tolerated);
  if (disagreements || fast_disagreements) {
    printf("FAIL property: %d (stores) and %d (forward/fast) of %d random traces disagree\n",
           disagreements, fast_disagreements, rounds);
    failed++;
  } else {
    passed++;
  }
}

static void store_limits(void) {
  /* A store that cannot grow drops the instance: counted, never a crash. */
  size_t old = vg_config.store_limit;
  vg_config.store_limit = 16;
  struct vigil_totals before, after;
  vigil_get_totals(&before);
  for (int config = TAGS; config <= HISTORY; config++) {
    reported[0] = 0;
    nreported = 0;
    vg_config.algorithm = config == HISTORY ? VG_HISTORY : VG_TAGS;
    struct built *b = build("A S", G, 1);
    static struct vigil_bound bound;
    memset(&bound, 0, sizeof bound);
    __vigil_bound_enter(&bound, 0);
    for (uint64_t v = 100; v < 200; v++) /* 100 distinct values */
      __vigil_event(&b->a, &bound, b->instance, 1, &v);
    uint64_t caps[1] = {7};
    __vigil_site_reached(&b->a, &bound, b->instance, caps);
    __vigil_bound_exit(&bound, 0);
    vg_stats_thread_exit();
    free(b);
  }
  vigil_get_totals(&after);
  vg_config.store_limit = old;
  /* tags: 100 keys do not fit 16 slots; history: the walk runs out */
  if (after.dropped - before.dropped == 2 && nreported == 0)
    passed++;
  else {
    printf("FAIL store_limits: dropped %llu, reported %d\n",
           (unsigned long long)(after.dropped - before.dropped), nreported);
    failed++;
  }
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 5000;
  vg_config_init();
  vg_config.on_failure = VG_LOG;
  vg_config.backtrace = 0;
  vigil_set_handler(record, NULL);
  if (argc == 5) { /* test_engine 0 SPEC MODE TRACE: show every configuration */
    for (int c = 0; c < NCONFIGS; c++)
      printf("%-10s \"%s\"\n", config_names[c], run(argv[2], atoi(argv[3]), argv[4], c));
    return 0;
  }
  semantic_cases();
  property_agreement(rounds);
  store_limits();
  printf("runtime: %d passed, %d failed\n", passed, failed);
  return failed != 0;
}
