/*
 * internal.h — libvigil's private data structures (ABI v3).
 *
 * An assertion's instance (per-thread TLS or global, allocated by the pass,
 * zero-initialised, VIGIL_INSTANCE_BYTES(nalts, ncaptures) bytes) is a
 * vg_header, one vg_alt per top-level OR alternative, then the captured
 * values.  Each alternative is a DFA (vigil/abi.h); the engine steps it.
 * What one alternative needs beyond 64 bytes (keyed checks, free-variable
 * candidates, the temporal store, a deferred failure) hangs off vg_alt.x,
 * allocated once per thread on first use ("warm-up") and reused in every
 * later bound.
 */
#ifndef VIGIL_INTERNAL_H
#define VIGIL_INTERNAL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "vigil/abi.h"
#include "vigil/fastpath.h"
#include "vigil/runtime.h"

/* ---- configuration (config.c) ------------------------------------------ */
enum vg_on_failure { VG_ABORT = 0, VG_LOG = 1, VG_COUNT = 2 };
enum vg_algorithm { VG_TAGS = 0, VG_HISTORY = 1 };

struct vg_config {
  int on_failure;       /* enum vg_on_failure */
  int algorithm;        /* enum vg_algorithm  */
  int stats;            /* VIGIL_STATS=1      */
  int backtrace;        /* VIGIL_BACKTRACE!=0 */
  int report_fd;        /* VIGIL_REPORT, -1 if unset */
  int precise;          /* kept for VIGIL_PRECISE (values are always compared exactly) */
  int shortcuts;        /* shortcut.c on; VIGIL_FAST_PATH=0 turns it off */
  size_t store_limit;   /* max entries of one temporal store */
};
extern struct vg_config vg_config;
void vg_config_init(void); /* idempotent, thread-safe */
/* parse.c.  A size with an optional K, M or G suffix; 0, or -1 after
 * saying why. */
int vg_parse_size(const char *var, const char *v, size_t *out);
/* getenv(var) as a number in [lo, hi]; dflt when unset or bad (said). */
long vg_env_number(const char *var, long lo, long hi, long dflt);
void vg_bad_value(const char *var, const char *val, const char *expect);

static inline uint64_t vg_bit(unsigned i) { return 1ull << i; }

/* ---- instance layout ----------------------------------------------------- */
/* Bytes 0..43 and 64..127 are shared with the inline fast path (vigil/abi.h
 * gives the offsets); 44..63 are the runtime's. */
struct vg_header {
  uint64_t gen;            /* bound gen when last touched; 0: never (here) */
  struct vg_header *next;  /* next touched instance of this bound */
  uint8_t fast[8];         /* per alternative, vigil/fastpath.h */
  uint64_t bounds;         /* statistics: bounds touched */
  uint64_t passes;         /* statistics: bounds passed */
  uint8_t settled;         /* nothing left for the second bound */
  uint8_t dropped;         /* this bound's verdict is unknowable (limits) */
  uint8_t reported;        /* a violation was reported in this bound */
  uint8_t site;            /* the runtime saw the site in this bound */
  uint32_t events;         /* statistics: events that reached the runtime */
  uint64_t clock;          /* timestamps of recorded occurrences */
  struct vigil_assertion *assertion; /* set when first touched */
  uint64_t ever[8];        /* per alternative: symbols seen (fast path too) */
};

/* vg_alt.status bits */
enum {
  VG_A_SITE = 1,       /* the site was reached in this bound: phase 1 decided */
  VG_A_PRE_FAILED = 2, /* forward: phase 1 failed (reported once) */
  VG_A_RECORDING = 4,  /* mixed: recording from `saved` since a Post event */
  VG_A_FAILED = 8,     /* some check of this alternative failed this bound */
  VG_A_LAZY = 16       /* shortcut.c failed it before the site; instance.c
                          derives the failure when it is first needed */
};

struct vg_altx;

struct vg_alt {
  uint64_t gen;         /* == header gen once initialised for this bound */
  uint16_t state;       /* forward: the phase-1 state before the first site */
  uint16_t saved;       /* mixed: the state recording started from */
  uint8_t status;       /* VG_A_* */
  uint8_t lazy_symbol;  /* VG_A_LAZY: the symbol that had no transition */
  uint16_t nchecks;     /* keyed checks in x->checks */
  uint64_t saved_ever;  /* mixed: ever when recording started */
  uint64_t rec_base;    /* occurrences with ts <= rec_base are forgotten */
  struct vg_altx *x;    /* per-thread (or global) memory, reused */
  uint64_t lazy_values[3]; /* VG_A_LAZY: its values (state: `state`, ever:
                              `saved_ever`) */
};

_Static_assert(sizeof(struct vg_header) == VIGIL_INSTANCE_HEADER_BYTES,
               "vg_header must fill the instance header");
_Static_assert(sizeof(struct vg_alt) == VIGIL_ALT_STATE_BYTES,
               "vg_alt must fill one alternative slot");
_Static_assert(offsetof(struct vg_header, fast) == VIGIL_HDR_FAST &&
                   offsetof(struct vg_header, bounds) == VIGIL_HDR_BOUNDS &&
                   offsetof(struct vg_header, passes) == VIGIL_HDR_PASSES &&
                   offsetof(struct vg_header, settled) == VIGIL_HDR_SETTLED &&
                   offsetof(struct vg_header, next) == VIGIL_HDR_NEXT &&
                   offsetof(struct vg_header, ever) == VIGIL_HDR_EVER,
               "vg_header must match the fast-path offsets of vigil/abi.h");
_Static_assert(sizeof(struct vigil_bound) == 64, "vigil_bound is 64 bytes");

static inline uint64_t *vg_captures(const struct vigil_assertion *a, void *instance) {
  return (uint64_t *)((char *)instance + VIGIL_CAPTURES_OFFSET(a->nalternatives));
}

static inline struct vg_alt *vg_alts(void *instance) {
  return (struct vg_alt *)((char *)instance + VIGIL_INSTANCE_HEADER_BYTES);
}

/* ---- failures (engine.c derives them, report.c prints them) ------------- */
enum vg_reason {
  VG_R_MISSING_BEFORE_SITE,  /* a required event never happened before the site */
  VG_R_WRONG_ORDER,          /* events happened, but not in the required order */
  VG_R_EARLY_EVENT,          /* an event expected after the site came before it */
  VG_R_MISSING_AFTER_SITE,   /* a required event after the site never came */
  VG_R_UNEXPECTED_EVENT,     /* strict mode: an event that is not a transition */
  VG_R_SITE_NOT_REACHED,     /* strict mode: the bound ended before the site */
  VG_R_NO_ALTERNATIVE        /* top-level OR: every alternative failed */
};

struct vg_failure {
  int reason;                /* enum vg_reason */
  int alternative;
  int event;                 /* symbol concerned, -1 if none */
  int has_values;            /* values: observed words of `event` */
  int has_tuple;             /* tuple: the check's captured values */
  uint8_t bound;             /* free variables bound in `binding` */
  int has_key;               /* struct automata: the object's KEY value */
  uint64_t key;
  uint64_t expected;         /* symbols that were allowed (need) */
  uint64_t values[VIGIL_MAX_VALUES];
  uint64_t tuple[VIGIL_MAX_CAPTURES];
  uint64_t binding[VIGIL_MAX_FREE];
};

/* ---- candidates and keyed checks (engine.c, checks.c) -------------------- */
/* One way the alternative may be matching: a DFA state and, for free
 * variables, the values bound so far (existential: one passing suffices). */
struct vg_cand {
  uint16_t state;
  uint8_t bound;        /* free variables bound (bit per variable) */
  uint8_t dead;         /* failed; kept so its binding is not tried again */
  uint8_t reserved[4];
  uint64_t ever;        /* symbols taken since the window began */
  uint64_t binding[VIGIL_MAX_FREE];
};

/* vg_check.status */
enum { VG_K_DONE = 1, VG_K_FAILED = 2 };

/* One value tuple's check in this bound (guideline and conditional). */
struct vg_check {
  uint64_t tuple[VIGIL_MAX_CAPTURES];
  uint8_t status;
  uint16_t ncand;
  uint16_t wild;                 /* captures the tuple does not fix (strict, no site) */
  struct vg_cand *cand;          /* capacity x->candcap */
  struct vg_failure last;        /* free variables: the best dead candidate */
  int has_last;
};

#define VG_MAX_CANDIDATES 32

struct vg_store;
struct vg_altx {
  struct vg_check *checks;
  uint16_t capchecks, candcap;
  int global;
  struct vg_store *store;
  struct vg_failure failure;     /* top-level OR: the first failure */
  int has_failure;
};

/* Step result of one candidate. */
enum { VG_STEP_OK = 0, VG_STEP_FAIL = 1, VG_STEP_NEWPASS = 2 };

/* engine.c: the DFA step and the verdicts it implies */
int vg_cand_step(const struct vigil_assertion *a, unsigned ai,
                 struct vg_cand *c, unsigned s, const uint64_t *values,
                 struct vg_failure *f);
int vg_cand_end(const struct vigil_assertion *a, unsigned ai,
                const struct vg_cand *c, struct vg_failure *f);
/* Guideline mode: a FINAL state is done (later events are ignored). */
static inline int vg_is_done(const struct vigil_assertion *a, unsigned ai,
                             unsigned state) {
  return a->mode == VIGIL_MODE_GUIDELINE &&
         (a->alternatives[ai].states[state].flags & VIGIL_SF_FINAL);
}
void vg_failure_init(struct vg_failure *f, unsigned ai, int reason, int event,
                     uint64_t expected);

/* checks.c: keyed checks and free-variable candidates */
struct vg_ctx {
  struct vigil_assertion *a;
  struct vigil_bound *b;
  struct vg_header *h;
  unsigned ai;
  struct vg_alt *alt;
};
struct vg_check *vg_check_find(struct vg_ctx *c, const uint64_t *tuple);
struct vg_check *vg_check_new(struct vg_ctx *c, const uint64_t *tuple,
                              unsigned state, uint64_t ever);
/* Whether `values` of symbol s carry `tuple` in their CAPTURE slots (the
 * captures in `wild` match any value). */
int vg_tuple_matches(const struct vigil_assertion *a, unsigned s,
                     const uint64_t *values, const uint64_t *tuple, unsigned wild);
/* Feeds symbol s to one check (capture filter, free-variable forks). */
void vg_check_event(struct vg_ctx *c, struct vg_check *k, unsigned s,
                    const uint64_t *values);
/* The same for an event known to carry the check's tuple (a replay). */
void vg_check_take(struct vg_ctx *c, struct vg_check *k, unsigned s,
                   const uint64_t *values);
void vg_check_end(struct vg_ctx *c, struct vg_check *k);
int vg_ensure_x(struct vg_ctx *c);
/* A failure of alternative ai: report now (one alternative) or keep it for
 * the end of the bound (top-level OR). */
void vg_alt_fail(struct vg_ctx *c, struct vg_failure *f);

/* replay.c: recording alternatives */
static inline int vg_records(const struct vigil_automaton *au, const struct vg_alt *alt) {
  return !(au->flags & VIGIL_AF_FORWARD) || (au->flags & VIGIL_AF_FREE) ||
         (alt->status & VG_A_RECORDING);
}
/* The common recording event: a single recording alternative before its
 * site, already initialised in this bound.  1 when it was recorded. */
int vg_record_quick(struct vigil_assertion *a, struct vg_header *h, unsigned s,
                    const uint64_t *values);
void vg_record(struct vg_ctx *c, unsigned s, const uint64_t *values);
void vg_replay_site(struct vg_ctx *c, const uint64_t *tuple);
void vg_strict_unreached(struct vg_ctx *c);

/* inline_log.c: events the pass appended to the instance's inline log
 * (vigil/abi.h "Inline log") go through vg_engine_event, in order, before
 * anything else looks at the instance; reset forgets them (a new bound). */
void vg_log_drain_all(struct vigil_assertion *a, struct vigil_bound *b,
                      struct vg_header *h);
void vg_log_reset(struct vigil_assertion *a, struct vg_header *h);
static inline void vg_log_drain(struct vigil_assertion *a, struct vigil_bound *b,
                                struct vg_header *h) {
  if (a && a->log_slots &&
      (uint32_t)__atomic_load_n((uint64_t *)((char *)h + VIGIL_LOG_OFFSET(
                                                            a->nalternatives, a->ncaptures)),
                                __ATOMIC_RELAXED))
    vg_log_drain_all(a, b, h);
}
/* A signal handler's event while the inline path touches the instance
 * (vigil/abi.h "Touching") or a log site decides (vigil/fastpath.h
 * VIGIL_FAST_BUSY): ignored, like one raised in the runtime. */
static inline int vg_inline_busy(const struct vigil_assertion *a, const struct vg_header *h) {
  /* (an eager instance is never touched inline, and its gen may be 0 in
   * a bound: VIGIL_BOUND_ENTRIES) */
  return (h->gen == VIGIL_GEN_TOUCHING && h->assertion && !a->eager) ||
         (a->log_slots && a->nalternatives == 1 && h->fast[0] == VIGIL_FAST_BUSY);
}
/* replay.c: vg_record_quick over consecutive log entries; how many taken */
unsigned vg_record_quick_run(struct vigil_assertion *a, struct vg_header *h,
                             const uint64_t *e, unsigned n, unsigned stride);

/* ---- temporal stores (store.c) ------------------------------------------- */
struct vg_occurrence {
  uint64_t ts;
  uint8_t sym;
  uint8_t reserved[7];
  uint64_t vals[VIGIL_MAX_VALUES];
};

/* Starts an empty store for a new window (lazily cleared). */
void vg_store_reset(struct vg_store *s);
/* Returns 0, or -1 when memory is exhausted. */
int vg_store_record(struct vg_altx *x, int tags, const struct vigil_event_desc *ev,
                    unsigned sym, uint64_t ts, const uint64_t *values);
/* The occurrences newer than `after` that `keep` accepts, in timestamp
 * order, into out[0..*n) (allocated by vg_alloc, reused).  *exact_from is
 * the timestamp from which the list is complete (0: complete). */
typedef int (*vg_keep_fn)(void *ctx, const struct vg_occurrence *o);
int vg_store_collect(struct vg_altx *x, int tags, uint64_t after, vg_keep_fn keep,
                     void *ctx, struct vg_occurrence **out, size_t *n,
                     uint64_t *exact_from);

/* ---- memory (alloc.c) ---------------------------------------------------- */
/* Zeroed memory owned by the calling thread's registry and released when the
 * thread exits (global instances: never).  NULL when memory is exhausted. */
void *vg_alloc(size_t size, int global);

/* ---- per-assertion bookkeeping (stats.c) --------------------------------- */
struct vg_assertion_rt {
  struct vigil_assertion *assertion;
  struct vg_assertion_rt *next;
  uint8_t fast_init[8];  /* header.fast[] on touch: 1 where eligible */
  uint64_t static_symbols; /* symbols with VIGIL_EF_STATIC (fast path model) */
  uint8_t any_fast;      /* some alternative may be in a fast state */
  struct vg_fast_table *tables; /* shortcut.c, per alternative (any_fast) */
  /* totals of exited threads (live instances are summed on demand) */
  atomic_uint_fast64_t instances, events, passes, failures, dropped;
};
struct vg_assertion_rt *vg_rt(struct vigil_assertion *a);
/* eager: the bound group of an eager instance (vigil/abi.h), whose gen
 * counts its bounds; NULL for every other instance (header.bounds). */
void vg_stats_register(struct vigil_assertion *a, struct vg_header *h, int global,
                       const struct vigil_bound *eager);
void vg_stats_flush_bound(struct vigil_assertion *a, struct vg_header *h);
void vg_stats_dropped(struct vigil_assertion *a);
void vg_stats_abandoned(void);
void vg_stats_thread_exit(void);

/* ---- reports (report.c) -------------------------------------------------- */
/* Reports failures[0..n) of one assertion as one violation (n > 1: every
 * alternative failed).  `h` may be NULL (struct automata). */
void vg_report(struct vigil_assertion *a, struct vg_header *h,
               const struct vg_failure *const *failures, int n);

void vg_report_violation(struct vigil_violation *v, const char *heading,
                         const char *const *lines, const char *const *tail,
                         const char *json);
/* An automaton violation (monitor_report.c): `core` is the JSON object up
 * to its backtrace, in the shape all engines share. */
void vg_report_core_violation(struct vigil_violation *v, const char *heading,
                              const char *const *lines, const char *const *tail,
                              const char *core);
struct vg_buf {
  char *p;
  size_t len, cap;
};
void vg_bprintf(struct vg_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void vg_bjson(struct vg_buf *b, const char *s); /* a JSON string literal */

/* ---- monitors (monitor.c) ------------------------------------------------ */
void vg_monitor_totals(struct vigil_totals *t);
void vg_monitor_print_stats(int count_mode);

/* ---- shortcuts (shortcut.c): plain transitions without the generic engine */
struct vg_fast_table;
/* Builds rt->tables; -1 (and no shortcuts) when memory is short. */
int vg_shortcut_prepare(const struct vigil_assertion *a, struct vg_assertion_rt *rt);
/* Steps every alternative observing s that is in a fast state and whose
 * step is plain; returns the alternatives the generic engine must take. */
uint64_t vg_shortcut_event(struct vigil_assertion *a, struct vigil_bound *b,
                           struct vg_header *h, unsigned s, const uint64_t *values);
int vg_shortcut_site(struct vigil_assertion *a, struct vigil_bound *b,
                     struct vg_header *h, const uint64_t *captures);
int vg_shortcut_end(struct vigil_assertion *a, struct vg_header *h);
/* instance.c: alternative ai (of several) has no transition on s in DFA
 * state `state` before the site: it can no longer hold in this bound.
 * Only the facts are kept; the failure is derived if the end of the bound
 * needs it (most OR alternatives fail while another holds). */
#define VG_LAZY_MAX_VALUES 3
void vg_fail_lazily(struct vigil_assertion *a, struct vg_header *h, unsigned ai,
                    unsigned state, unsigned s, const uint64_t *values);
/* or.c: header.settled when an OR alternative entered done inline */
#define VG_SETTLED_OR 2
/* or.c: undoes the inline path's OR shortcuts (settled = 2, dead fast
 * states) before the runtime looks at the instance; b may be null when the
 * instance is not pending (the end of the bound). */
void vg_or_adopt(struct vigil_assertion *a, struct vigil_bound *b, struct vg_header *h);
/* Whether alternative ai ignores the rest of the bound (failed before the
 * site, lazily or not). */
static inline int vg_alt_inert(const struct vg_header *h, unsigned ai) {
  const struct vg_alt *alt = &((const struct vg_alt *)((const char *)h +
                                                       VIGIL_INSTANCE_HEADER_BYTES))[ai];
  return alt->gen == h->gen && (alt->status & (VG_A_LAZY | VG_A_PRE_FAILED));
}

/* ---- the engine's entry points (instance.c, objects.c) ------------------- */
/* frame: as __vigil_bound_enter's, or null where abandoned bounds must not
 * be closed now (global bounds; the runtime itself is running) */
void vg_engine_bound_enter(struct vigil_bound *b, void *const *frame);
/* abandon.c: whether an entry from `frame` finds the open bound abandoned
 * (its outermost frame gone), and closing it */
int vg_bound_abandoned(const struct vigil_bound *b, void *const *frame);
void vg_bound_abandon(struct vigil_bound *b);
void vg_engine_settle(struct vigil_bound *b);
/* instance.c: the runtime's touch (first look in a bound; eager instances
 * only get gen and their flags) and the end of the bound for one instance */
void vg_instance_touch(struct vigil_assertion *a, struct vigil_bound *b,
                       struct vg_header *h);
void vg_instance_end(struct vigil_assertion *a, struct vigil_bound *b,
                     struct vg_header *h);
/* eager.c: eager instances at the outermost exit and at an entry that
 * found the bound abandoned (vigil/abi.h "Eager instances") */
void vg_engine_settle_eager(struct vigil_bound *b, uint32_t n,
                            struct vigil_assertion *const *as, void *const *insts);
void vg_engine_enter_eager(struct vigil_bound *b, void *const *frame, uint32_t n,
                           struct vigil_assertion *const *as, void *const *insts);
void vg_engine_site(struct vigil_assertion *a, struct vigil_bound *b,
                    void *instance, const uint64_t *captures);
void vg_engine_event(struct vigil_assertion *a, struct vigil_bound *b,
                     void *instance, unsigned symbol, const uint64_t *values);
void vg_objects_event(struct vigil_assertion *a, unsigned symbol,
                      const uint64_t *values);

#endif /* VIGIL_INTERNAL_H */
