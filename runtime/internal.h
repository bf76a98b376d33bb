/*
 * internal.h — libvigil's private data structures.
 *
 * An assertion's instance (per-thread TLS or global, allocated by the pass,
 * zero-initialised, VIGIL_INSTANCE_BYTES(nalts) bytes) is a vg_header
 * followed by one vg_alt per top-level OR alternative.  Everything else the
 * runtime needs (captured values, temporal stores, deferred failures) hangs
 * off those two structs and is allocated once per thread, on first use
 * ("warm-up"), then reused for every later bound.
 */
#ifndef VIGIL_INTERNAL_H
#define VIGIL_INTERNAL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "vigil/abi.h"
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
  int precise;          /* VIGIL_PRECISE=0: compare value hashes only (§4.2.6) */
  size_t store_limit;   /* max entries of one temporal store */
};
extern struct vg_config vg_config;
void vg_config_init(void); /* idempotent, thread-safe */

/* ---- instance layout ----------------------------------------------------- */
/* Bytes 0..47 are shared with the inline fast path (vigil/abi.h gives the
 * offsets); the rest is the runtime's. */
struct vg_header {
  uint64_t gen;            /* bound gen when last touched; 0: never (here) */
  struct vg_header *next;  /* next touched instance of this bound */
  uint8_t fast[8];         /* per alternative, vigil/fastpath.h */
  uint64_t bounds;         /* statistics: bounds touched */
  uint64_t passes;         /* statistics: bounds passed */
  uint8_t settled;         /* nothing left for the second bound */
  uint8_t dropped;         /* this bound's instance was dropped (no memory) */
  uint8_t reported;        /* a violation was reported in this bound */
  uint8_t site;            /* the site was reached in this bound */
  uint32_t events;         /* statistics: events that reached the runtime */
  uint64_t clock;          /* timestamps of recorded occurrences */
  struct vigil_assertion *assertion; /* set when first touched */
};

/* vg_alt.status bits */
enum {
  VG_ALT_DISABLED = 1,  /* guideline: checked once, or failed: quiet till end */
  VG_ALT_FAILED = 2,    /* a violation was found in this bound */
  VG_ALT_SITE = 4       /* the site was reached in this bound */
};

struct vg_failure;
struct vg_store;

struct vg_alt {
  uint64_t gen;              /* == header gen once initialised for this bound */
  uint8_t cur;               /* index of the last event taken (0: first bound) */
  uint8_t status;            /* VG_ALT_* */
  uint8_t reserved0[6];
  uint64_t seen;             /* OR-block members taken in the current block */
  uint64_t early;            /* post-site events seen before the site */
  uint64_t ever;             /* events observed in this bound */
  uint64_t rec_base;         /* non-static: occurrences <= this are forgotten */
  struct vg_store *store;    /* non-static: temporal store */
  struct vg_failure *failure;/* deferred report (top-level OR) */
};

_Static_assert(sizeof(struct vg_header) == VIGIL_INSTANCE_HEADER_BYTES,
               "vg_header must fill the instance header");
_Static_assert(sizeof(struct vg_alt) == VIGIL_ALT_STATE_BYTES,
               "vg_alt must fill one alternative slot");
_Static_assert(offsetof(struct vg_header, fast) == VIGIL_HDR_FAST &&
                   offsetof(struct vg_header, bounds) == VIGIL_HDR_BOUNDS &&
                   offsetof(struct vg_header, passes) == VIGIL_HDR_PASSES &&
                   offsetof(struct vg_header, settled) == VIGIL_HDR_SETTLED &&
                   offsetof(struct vg_header, next) == VIGIL_HDR_NEXT,
               "vg_header must match the fast-path offsets of vigil/abi.h");
_Static_assert(sizeof(struct vigil_bound) == 64, "vigil_bound is 64 bytes");

static inline uint64_t *vg_captures(const struct vigil_assertion *a, void *instance) {
  return (uint64_t *)((char *)instance + VIGIL_CAPTURES_OFFSET(a->nalternatives));
}

static inline struct vg_alt *vg_alts(void *instance) {
  return (struct vg_alt *)((char *)instance + VIGIL_INSTANCE_HEADER_BYTES);
}

/* ---- temporal stores (store.c) ------------------------------------------- */
/* One occurrence: which event, when, and the values of its captured slots
 * (other slots zero) — the key the site will look for. */
struct vg_occurrence {
  uint64_t ts;
  uint8_t event;
  uint8_t reserved[7];
  uint64_t vals[VIGIL_MAX_VALUES];
};

/* Returns 0, or -1 when the store could not grow (instance dropped). */
int vg_store_record(struct vg_alt *alt, int global, uint64_t gen,
                    uint8_t event, uint64_t ts, const uint64_t *key);
/* Feeds the occurrences newer than `after`, newest first, to `step` until it
 * returns 0.  Occurrences are filtered: only those whose key equals
 * `keys[event]` are fed (static events have all-zero keys).  For the tags
 * store at most the two newest occurrences of each key exist, which is all
 * the walk in engine.c can consume (see there).  Returns -1 when the walk
 * wanted occurrences the store no longer has (history truncated). */
typedef int (*vg_step_fn)(void *ctx, uint8_t event, uint64_t ts);
int vg_store_walk(struct vg_alt *alt, const struct vigil_automaton *au,
                  uint64_t gen, uint64_t after, const uint64_t (*keys)[VIGIL_MAX_VALUES],
                  uint64_t interest, vg_step_fn step, void *ctx);

/* Whether `event` with `key` occurred after timestamp `after`. */
int vg_store_seen(struct vg_alt *alt, uint64_t gen, uint64_t after,
                  uint8_t event, const uint64_t *key);

/* Key of an occurrence as observed: the captured slots' values, rest 0. */
void vg_key_observed(const struct vigil_event_desc *ev, const uint64_t *values,
                     uint64_t *key);
/* Key the site expects for an event, from the captured values. */
void vg_key_expected(const struct vigil_event_desc *ev, const uint64_t *captures,
                     uint64_t *key);

/* ---- memory (alloc.c) ---------------------------------------------------- */
/* Zeroed memory owned by the calling thread's registry and released when the
 * thread exits (global instances: never).  NULL when memory is exhausted. */
void *vg_alloc(size_t size, int global);

/* ---- per-assertion bookkeeping (stats.c) --------------------------------- */
struct vg_assertion_rt {
  struct vigil_assertion *assertion;
  struct vg_assertion_rt *next;
  uint8_t fast_init[8];  /* header.fast[] on touch: 1 where eligible */
  /* totals of exited threads (live instances are summed on demand) */
  atomic_uint_fast64_t instances, events, passes, failures, dropped;
};
struct vg_assertion_rt *vg_rt(struct vigil_assertion *a);
/* First touch of an instance on this thread (or ever, global): list it so
 * its counters are summed by vigil_get_totals and saved at thread exit. */
void vg_stats_register(struct vigil_assertion *a, struct vg_header *h, int global);
/* At the end of a bound, for an instance the runtime looked at. */
void vg_stats_flush_bound(struct vigil_assertion *a, struct vg_header *h);
/* Thread exit: fold this thread's instances' counters into the totals. */
void vg_stats_thread_exit(void);

/* ---- reports (report.c) -------------------------------------------------- */
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
  int event;                 /* event concerned, -1 if none */
  int has_values;            /* values below are the observed ones */
  uint64_t values[VIGIL_MAX_VALUES];
  uint64_t expected;         /* mask of events that were allowed */
};

/* Reports one failure now (single alternative) or records it for the end
 * of the bound (top-level OR).  Applies VIGIL_ON_FAILURE. */
void vg_fail(struct vigil_assertion *a, void *instance, struct vg_failure *f);
/* At the end of a bound of a top-level-OR assertion: report if every
 * alternative failed. */
void vg_report_group(struct vigil_assertion *a, void *instance);

/* Violations that are not an assertion's (monitors): `v` is filled by the
 * caller except the thread; see report.c.  Applies VIGIL_ON_FAILURE. */
void vg_report_violation(struct vigil_violation *v, const char *heading,
                         const char *const *lines, const char *const *tail,
                         const char *json);
struct vg_buf {
  char *p;
  size_t len, cap;
};
void vg_bprintf(struct vg_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void vg_bjson(struct vg_buf *b, const char *s); /* a JSON string literal */

/* ---- monitors (monitor.c) ------------------------------------------------ */
/* Adds the monitors' counts to `t` (events, failures, dropped and the
 * monitor_* fields). */
void vg_monitor_totals(struct vigil_totals *t);
/* VIGIL_STATS / count mode: one line per monitor. */
void vg_monitor_print_stats(int count_mode);

/* ---- the engine (engine.c) ----------------------------------------------- */
void vg_engine_bound_enter(struct vigil_bound *b);
/* The outermost exit: checks every touched instance not yet settled. */
void vg_engine_settle(struct vigil_bound *b);
void vg_engine_site(struct vigil_assertion *a, struct vigil_bound *b,
                    void *instance, const uint64_t *captures);
void vg_engine_event(struct vigil_assertion *a, struct vigil_bound *b,
                     void *instance, unsigned alt, unsigned event,
                     const uint64_t *values);

#endif /* VIGIL_INTERNAL_H */
