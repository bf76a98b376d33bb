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
  size_t store_limit;   /* max entries of one temporal store */
};
extern struct vg_config vg_config;
void vg_config_init(void); /* idempotent, thread-safe */

/* ---- instance layout ----------------------------------------------------- */
struct vg_header {
  uint32_t depth;      /* nesting of the bound (recursion) */
  uint32_t gen;        /* bumped when the outermost bound is entered */
  uint64_t clock;      /* timestamps of recorded occurrences */
  uint64_t *captures;  /* ncaptures words, set at the site */
  atomic_uint lock;    /* global assertions only */
  uint32_t site_gen;   /* gen in which the site was last reached */
  uint64_t events;     /* statistics, flushed at the end of the bound */
  uint32_t dropped;    /* this bound's instance was dropped (no memory) */
  uint32_t reported;   /* a violation was reported in this bound */
  uint8_t reserved[16];
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
  uint32_t gen;              /* == header gen once initialised for this bound */
  uint8_t cur;               /* index of the last event taken (0: first bound) */
  uint8_t status;            /* VG_ALT_* */
  uint16_t reserved0;
  uint64_t seen;             /* OR-block members taken in the current block */
  uint64_t early;            /* post-site events seen before the site */
  uint64_t ever;             /* events observed in this bound */
  uint64_t rec_base;         /* non-static: occurrences <= this are forgotten */
  struct vg_store *store;    /* non-static: temporal store */
  struct vg_failure *failure;/* deferred report (top-level OR) */
  uint64_t reserved1;
};

_Static_assert(sizeof(struct vg_header) == VIGIL_INSTANCE_HEADER_BYTES,
               "vg_header must fill the instance header");
_Static_assert(sizeof(struct vg_alt) == VIGIL_ALT_STATE_BYTES,
               "vg_alt must fill one alternative slot");

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
int vg_store_record(struct vg_alt *alt, int global, uint32_t gen,
                    uint8_t event, uint64_t ts, const uint64_t *key);
/* Feeds the occurrences newer than `after`, newest first, to `step` until it
 * returns 0.  Occurrences are filtered: only those whose key equals
 * `keys[event]` are fed (static events have all-zero keys).  For the tags
 * store at most the two newest occurrences of each key exist, which is all
 * the walk in engine.c can consume (see there).  Returns -1 when the walk
 * wanted occurrences the store no longer has (history truncated). */
typedef int (*vg_step_fn)(void *ctx, uint8_t event, uint64_t ts);
int vg_store_walk(struct vg_alt *alt, const struct vigil_automaton *au,
                  uint32_t gen, uint64_t after, const uint64_t (*keys)[VIGIL_MAX_VALUES],
                  uint64_t interest, vg_step_fn step, void *ctx);

/* Whether `event` with `key` occurred after timestamp `after`. */
int vg_store_seen(struct vg_alt *alt, uint32_t gen, uint64_t after,
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
  atomic_uint_fast64_t instances, events, passes, failures, dropped;
};
struct vg_assertion_rt *vg_rt(struct vigil_assertion *a);
void vg_stats_flush_bound(struct vigil_assertion *a, struct vg_header *h,
                          int passed);

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

/* ---- the engine (engine.c) ----------------------------------------------- */
void vg_engine_bound_start(struct vigil_assertion *a, void *instance);
void vg_engine_bound_end(struct vigil_assertion *a, void *instance);
void vg_engine_site(struct vigil_assertion *a, void *instance,
                    const uint64_t *captures);
void vg_engine_event(struct vigil_assertion *a, void *instance, unsigned alt,
                     unsigned event, const uint64_t *values);

#endif /* VIGIL_INTERNAL_H */
