/*
 * vigil/abi.h — the contract between vigil's link-time LLVM pass and the
 * libvigil runtime.  The pass emits, for every assertion, the constant data
 * below (as LLVM globals whose layout matches these C structs on x86-64 /
 * any LP64 target) and calls the four entry points at the end of the file.
 * Nothing else crosses the boundary.  Change VIGIL_ABI_VERSION with any edit.
 *
 * Vocabulary (ThinTESLA, dissertation ch. 3):
 *   assertion    one TESLA_* statement in the source.  It has one site and two
 *                bounds, and one or more alternatives (top-level `||`).
 *   automaton    one alternative: a linear sequence of events.  events[0] is
 *                the first bound, events[nevents-1] the second bound, and
 *                events[site] the assertion site.
 *   successors   forward successors only (§3.1.3): bit j of
 *                events[i].successors is set when event j may directly follow
 *                event i.  Members of one OR block are not linked backwards;
 *                events[i].or_block has the bits of the other members of i's
 *                block, which the engine may also take (each at most once).
 *   bound        one struct vigil_bound per group of assertions that share
 *                both bounds and the locality (per-thread: thread_local).
 *                Entering and leaving a bound touches only this struct, so
 *                assertions whose events never occur in a bound cost nothing
 *                there (late initialisation, §4.2.4), and the second bound
 *                checks one counter (§4.2.5) instead of every assertion.
 *   instance     per-thread (thread_local) or global storage the pass
 *                allocates, zero-initialised, VIGIL_INSTANCE_BYTES(nalts,
 *                ncaptures) bytes, 64-byte aligned: a header, one 64-byte
 *                state per alternative, then the captured values.
 *   fast path    for per-thread assertions the pass inlines the common
 *                transitions (see "Inline fast path" below and
 *                vigil/fastpath.h); everything else calls the runtime.
 */
#ifndef VIGIL_ABI_H
#define VIGIL_ABI_H

#include <stdint.h>

#define VIGIL_ABI_VERSION 2

#define VIGIL_MAX_EVENTS 64       /* per automaton, bounds and site included */
#define VIGIL_MAX_VALUES 8        /* value slots per event (args + return)   */
#define VIGIL_MAX_CAPTURES 16     /* captured expressions per assertion      */
#define VIGIL_MAX_ALTERNATIVES 8  /* top-level OR alternatives               */

#define VIGIL_INSTANCE_HEADER_BYTES 64
#define VIGIL_ALT_STATE_BYTES 64
#define VIGIL_CAPTURES_OFFSET(nalts)                                           \
  (VIGIL_INSTANCE_HEADER_BYTES + VIGIL_ALT_STATE_BYTES * (nalts))
#define VIGIL_INSTANCE_BYTES(nalts, ncaptures)                                 \
  ((VIGIL_CAPTURES_OFFSET(nalts) + 8 * (ncaptures) + 63) / 64 * 64)

/* ---- Inline fast path: the fields instrumented code may touch ---------------
 *
 * struct vigil_bound (64 bytes, zero-initialised):                            */
struct vigil_bound {
  uint64_t gen;        /* bumped by every outermost entry and exit: odd inside
                          the bound, even outside (0: never entered)       */
  void *touched;       /* instances touched in this bound, via header.next   */
  uint32_t depth;      /* nesting of the bound (recursion)                   */
  uint32_t pending;    /* touched instances the second bound must look at    */
  uint32_t lock;       /* global groups: held while the runtime works        */
  uint32_t reserved0;
  uint64_t reserved[4];
};
/*
 * Instance header (first 64 bytes of an instance), byte offsets:
 *    0  uint64_t gen      bound gen in which it was last touched; 0: never on
 *                         this thread (the runtime registers it first)
 *    8  void *next        next touched instance in this bound
 *   16  uint8_t fast[8]   per alternative: 0 = the runtime owns the state;
 *                         1..nevents = "plain" state, last event f-1 taken;
 *                         nevents+1 = done (checked, nothing left to do)
 *   24  uint64_t bounds   statistics: bounds in which it was touched
 *   32  uint64_t passes   statistics: bounds it passed
 *   40  uint8_t settled   nothing left for the second bound to do
 *   41  uint8_t dropped, 42 reported, 43 site   (runtime, reset on touch)
 * An event with header.gen == bound.gen is inside the bound and touched.
 * Touching (first event of the assertion in a bound, gen != bound.gen and
 * bound.gen odd):
 *   gen = bound.gen; next = bound.touched; bound.touched = inst;
 *   fast[i] = 1 for each alternative that vigil_fast_eligible(), else 0;
 *   bytes 40..43 = 0; bounds += 1; bound.pending += 1.
 * A transition into "done" of a single-alternative assertion also sets
 * settled = 1, passes += 1, bound.pending -= 1.  The tables that say which
 * transitions are plain come from vigil_fast_next / vigil_fast_site.
 */
#define VIGIL_HDR_GEN 0
#define VIGIL_HDR_NEXT 8
#define VIGIL_HDR_FAST 16
#define VIGIL_HDR_BOUNDS 24
#define VIGIL_HDR_PASSES 32
#define VIGIL_HDR_SETTLED 40
#define VIGIL_HDR_FLAGS 40 /* 4 bytes: settled, dropped, reported, site */

/* vigil_event_desc.kind */
enum vigil_event_kind {
  VIGIL_EV_START = 0,  /* first bound  */
  VIGIL_EV_END = 1,    /* second bound */
  VIGIL_EV_CALL = 2,   /* function entry: call(f), call(f(args))           */
  VIGIL_EV_RETURN = 3, /* function return: returnfrom(f), f(args) == v      */
  VIGIL_EV_SITE = 4    /* TESLA_ASSERTION_SITE                             */
};

/* vigil_event_desc.flags */
enum vigil_event_flags {
  VIGIL_EF_OPTIONAL = 1u << 0,  /* optional(...)                             */
  VIGIL_EF_STATIC = 1u << 1,    /* no captured value: decidable on the spot  */
  VIGIL_EF_POST_SITE = 1u << 2, /* comes after the site in the sequence      */
  VIGIL_EF_FINAL = 1u << 3,     /* the second bound is one of its successors */
  VIGIL_EF_OR = 1u << 4,        /* member of an OR block                     */
  VIGIL_EF_CALLER = 1u << 5     /* instrumented at call sites (informative)  */
};

/* vigil_value_desc.kind */
enum vigil_value_kind {
  VIGIL_VAL_ANY = 0,     /* ANY(type): matches every value                     */
  VIGIL_VAL_CONST = 1,   /* compile-time constant, checked inline by the pass  */
  VIGIL_VAL_CAPTURE = 2  /* equals captures[capture] taken at the site         */
};

/* One argument or return value named by an event.  Values travel as 64-bit
 * words: the parameter's bits, zero-extended (pointers: their address).  The
 * plugin converts captured expressions and constants the same way, so equal
 * C values compare equal whatever their signedness. */
struct vigil_value_desc {
  const char *text;     /* source text, e.g. "c", "0", "ANY(ptr)"          */
  uint64_t constant;    /* VIGIL_VAL_CONST only                             */
  uint8_t kind;         /* enum vigil_value_kind                            */
  uint8_t is_return;    /* 1: the return value; 0: argument arg_index       */
  uint8_t arg_index;    /* zero-based C parameter index                     */
  uint8_t capture;      /* VIGIL_VAL_CAPTURE: index into the site captures  */
  uint8_t reserved[4];
};

struct vigil_event_desc {
  const char *function;                  /* NULL for the site             */
  const char *text;                      /* e.g. "mac_check(c, f) == 0"   */
  const struct vigil_value_desc *values; /* nvalues slots, args then ret  */
  uint64_t successors;                   /* forward successors (bitmask)  */
  uint64_t or_block;                     /* other members of its OR block */
  uint8_t kind;                          /* enum vigil_event_kind         */
  uint8_t flags;                         /* enum vigil_event_flags        */
  uint8_t nvalues;
  uint8_t reserved[5];
};

struct vigil_automaton {
  const struct vigil_event_desc *events; /* nevents entries               */
  const char *text;                      /* this alternative's text       */
  uint8_t nevents;
  uint8_t site;                          /* index of the site event       */
  uint8_t is_static;                     /* every event is static         */
  uint8_t reserved[5];
};

/* vigil_assertion.locality */
enum vigil_locality { VIGIL_PERTHREAD = 0, VIGIL_GLOBAL = 1 };

/* vigil_assertion.mode (docs/assertion-language.md, "Modes") */
enum vigil_mode {
  VIGIL_MODE_GUIDELINE = 0,   /* default: checked once per bound            */
  VIGIL_MODE_CONDITIONAL = 1, /* every pass through the site is checked     */
  VIGIL_MODE_STRICT = 2       /* the whole bound must follow the sequence   */
};

/* One per assertion; writable because libvigil keeps a pointer to its own
 * bookkeeping in `runtime` (zero until the first event). */
struct vigil_assertion {
  const char *location;                  /* "file.c:12:5" of the site     */
  const char *text;                      /* the assertion as written      */
  const struct vigil_automaton *alternatives; /* nalternatives entries    */
  const char *const *capture_texts;      /* ncaptures source texts        */
  void *runtime;                         /* owned by libvigil             */
  uint32_t id;                           /* dense, 0..N-1 per program     */
  uint8_t nalternatives;
  uint8_t locality;                      /* enum vigil_locality           */
  uint8_t mode;                          /* enum vigil_mode               */
  uint8_t ncaptures;
  uint8_t fast;                          /* 1: the pass inlined its fast path */
  uint8_t reserved[7];
};

#ifdef __cplusplus
extern "C" {
#endif

/* `bound` is the assertion's bound group, `instance` its per-thread
 * (thread_local) or global storage.  `global` is 1 for global groups.
 * `event` is (alternative << 8) | event index within that alternative.
 * `values` points to the event's nvalues words (may be NULL when 0).
 * `captures` points to the assertion's ncaptures words, or is NULL when the
 * caller already stored them in the instance (inline fast path). */
void __vigil_bound_enter(struct vigil_bound *bound, int global);
void __vigil_bound_exit(struct vigil_bound *bound, int global);
/* Inline fast path: the outermost exit found bound->pending != 0 (depth is
 * already 0). */
void __vigil_bound_settle(struct vigil_bound *bound);
void __vigil_site_reached(struct vigil_assertion *a, struct vigil_bound *bound,
                          void *instance, const uint64_t *captures);
void __vigil_event(struct vigil_assertion *a, struct vigil_bound *bound,
                   void *instance, uint32_t event, const uint64_t *values);

#ifdef __cplusplus
}
#endif

#endif /* VIGIL_ABI_H */
