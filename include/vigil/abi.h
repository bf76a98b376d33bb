/*
 * vigil/abi.h — the contract between vigil's link-time LLVM pass and the
 * libvigil runtime.  The pass emits, for every assertion, the constant data
 * below (as LLVM globals whose layout matches these C structs on x86-64 /
 * any LP64 target) and calls the entry points at the end of the file.
 * Nothing else crosses the boundary.  Change VIGIL_ABI_VERSION with any edit.
 *
 * Vocabulary (ThinTESLA, dissertation ch. 3; TESLA for the richer language):
 *   assertion    one TESLA_* statement in the source (or one
 *                TESLA_STRUCT_AUTOMATON).  It has one site, two bounds and
 *                one or more alternatives (top-level `||`).
 *   symbol       one distinct event of the assertion: a function entry or
 *                return with value patterns, a store to a struct field, the
 *                site, a bound.  Symbols 0, 1 and 2 are the first bound, the
 *                second bound and the site.  An event written twice in the
 *                assertion is one symbol.
 *   automaton    one alternative, compiled by the pass into a DFA over the
 *                assertion's symbols: next[state * nsymbols + symbol] is the
 *                next state, or VIGIL_NO_STATE for a violation; each state
 *                has a vigil_state_desc saying what the engine needs to
 *                decide and report (compiler/model/Automaton.h defines the
 *                construction; the engine in runtime/engine.c only steps it).
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
 *   fast path    the pass inlines the common transitions (see "Inline fast
 *                path" below and vigil/fastpath.h); everything else calls
 *                the runtime.  Global groups do it under their lock (see
 *                "Global groups inline").
 */
#ifndef VIGIL_ABI_H
#define VIGIL_ABI_H

#include <stdint.h>

#define VIGIL_ABI_VERSION 9

#define VIGIL_MAX_SYMBOLS 64      /* per assertion, bounds and site included */
#define VIGIL_MAX_VALUES 8        /* value slots per event (args + return)   */
#define VIGIL_MAX_CAPTURES 16     /* captured expressions per assertion      */
#define VIGIL_MAX_FREE 8          /* free variables per assertion            */
#define VIGIL_MAX_ALTERNATIVES 8  /* top-level OR alternatives               */

#define VIGIL_SYM_START 0
#define VIGIL_SYM_END 1
#define VIGIL_SYM_SITE 2
#define VIGIL_NO_STATE 0xffffu
#define VIGIL_NO_SYMBOL 0xffu

#define VIGIL_INSTANCE_HEADER_BYTES 128
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
  uint64_t lock;       /* global groups: 0 free, else the holder's
                          vigil_lock_tag() ("Global groups inline" below) */
  void *const *frame;  /* per-thread bounds of call(f)..returnfrom(f): where
                          the outermost entry's return address is kept (its
                          frame), or null; see "Abandoned bounds" below  */
  const void *frame_return; /* the return address *frame held then         */
  uint32_t flags;      /* enum vigil_bound_flags: its thread-local initial
                          value, set by the pass                            */
  uint32_t reserved0;
  uint64_t reserved[1];
};
enum vigil_bound_flags {
  /* Every member of the group is an eager instance ("Eager instances"):
   * gen counts the outermost entries, starting from ~0 (the thread's first
   * entry makes it 0 and registers the eager instances with
   * __vigil_bound_settle_eager before initialising them); the exit neither
   * bumps gen nor reads pending (nothing is ever pending), and nothing is
   * ever on the touched list. */
  VIGIL_BOUND_ENTRIES = 1u << 0
};
/*
 * Abandoned bounds.  A longjmp out of a bound function skips its exit, and
 * the bound would stay open for ever.  An entry with depth > 0 is a real
 * nesting only if it comes from a frame below the recorded one (the stack
 * grows down) while the recorded frame still holds its return address;
 * otherwise the runtime closes the abandoned bound (its unsettled instances
 * dropped and counted) and starts a new one.  Inline, a nested entry is:
 *   if (frame >= bound.frame || *bound.frame != bound.frame_return)
 *     __vigil_bound_enter(bound, 0, frame);   (the runtime decides)
 *   else depth += 1;
 * and the outermost entry stores frame and *frame with gen and touched.
 */
/*
 * Instance header (first 128 bytes of an instance), byte offsets:
 *    0  uint64_t gen      bound gen in which it was last touched; 0: never on
 *                         this thread (the runtime registers it first)
 *    8  void *next        next touched instance in this bound
 *   16  uint8_t fast[8]   per alternative: 0 = the runtime owns the state;
 *                         1..nstates = DFA state f-1 (plain);
 *                         nstates+1 = done (checked, nothing left to do);
 *                         nstates+2+d = dead in state d at the site (top-
 *                         level OR, vigil/fastpath.h vigil_fast_site_or)
 *   24  uint64_t bounds   statistics: bounds in which it was touched
 *   32  uint64_t passes   statistics: bounds it passed
 *   40  uint8_t settled   nothing left for the second bound to do (2: an
 *                         OR alternative entered done inline; see below)
 *   41  uint8_t dropped, 42 reported, 43 site   (runtime, reset on touch)
 *   64  uint64_t ever[8]  per alternative: the symbols seen since its window
 *                         began (they word a failure: wrong-order or missing)
 * An event with header.gen == bound.gen is inside the bound and touched.
 * Touching (first event of the assertion in a bound, gen != bound.gen and
 * bound.gen odd):
 *   claim: gen = VIGIL_GEN_TOUCHING (one compare-and-swap from the old gen);
 *   next = bound.touched; bound.touched = inst;
 *   fast[i] = 1 for each alternative that is fast-eligible, else 0;
 *   bytes 40..43 = 0; ever[i] = 0; bounds += 1; bound.pending += 1;
 *   then gen = bound.gen.
 * While gen is VIGIL_GEN_TOUCHING (0, the instance being registered) a
 * signal handler's events for the instance go to the runtime, which
 * ignores them, as it ignores those raised while it runs: the handler
 * would otherwise see the last bound's state as this one's.  A global
 * group's touch, under the bound's lock, stores without the claim.
 * A plain transition on symbol s of alternative i: ever[i] |= 1 << s and
 * fast[i] = the next state + 1.  A transition into "done" of a
 * single-alternative assertion also sets settled = 1, passes += 1,
 * bound.pending -= 1.  vigil_fast_next (vigil/fastpath.h) says which
 * transitions are plain.
 *
 * Top-level OR inline.  With several alternatives, one entering "done"
 * holds for the only value tuple that reached the site (a second tuple
 * takes every alternative to the runtime), so the assertion holds: for a
 * late-initialised instance (an eager one counts nothing inline), when
 * bytes 40..41 (settled, dropped) are 0 the hook sets settled = 2,
 * passes += 1, bound.pending -= 1.  The runtime, called later for the
 * instance in the same bound, undoes it (settled = 0, passes -= 1,
 * pending += 1) and turns dead fast states into its own lazy failures
 * first, so its end of the bound decides as if it had seen every step.
 * Eager instances (vigil_assertion.eager; per-thread, inline, guideline
 * mode, every alternative fast-eligible; since ABI 8 also several
 * alternatives, a top-level OR).  In a small bound group the pass
 * initialises the instance at every outermost entry instead of touching it
 * at its first event, so its hooks skip the generation check and the
 * touch, and nothing on its inline path counts anything:
 *   outermost entry:  fast[i] = 1 for every alternative (one store; bytes
 *                     past the alternatives up to a power of two are 0),
 *                     ever[i] = 0 where a hook sets ever bits;
 *   events, site:     the table steps alone; VIGIL_FAST_OUTSIDE is ignored
 *                     (or steps to itself); "done" sets nothing else (no
 *                     settled, passes, pending: no OR settle either);
 *   outermost exit:   per eager instance, vigil_fast_end(fast[0]), or with
 *                     several alternatives vigil_fast_end_joint of the
 *                     union of their vigil_fast_end_class (vigil/fastpath.h):
 *                     PASS adds one to passes, QUIET nothing, RUNTIME (or
 *                     pending != 0) calls __vigil_bound_settle_eager, which
 *                     ends those instances (as it ends a lazy OR instance:
 *                     dead states become its lazy failures) and the
 *                     touched list; then fast[i] = VIGIL_FAST_OUTSIDE.
 *                     One alternative done is PASS whatever the others
 *                     are: the runtime sets every fast[i] of an eager
 *                     instance it drops to 0, and nothing else in a bound
 *                     makes a done alternative's verdict a failure.
 * An eager instance is never on the touched list and never in pending.  Its
 * header's gen is set by the runtime when it first looks at the instance in
 * a bound (it then resets bytes 40..43 only), and its `bounds` statistic is
 * derived from the group's gen: every bound of the group on the thread.
 * The group's bound starts with pending = 1 (its thread-local initial
 * value) so that the first exit on each thread calls the runtime, which
 * registers the eager instances for the statistics; a group of eager
 * instances only registers them at the first entry instead and has no
 * pending count at all (VIGIL_BOUND_ENTRIES).
 */
/*
 * Global groups inline.  A global group's bound and instances are shared by
 * every thread and serialised by bound.lock: 0 when free, else the tag of
 * the thread holding it, vigil_lock_tag() (the thread pointer: one
 * instruction, unique among live threads).  The inline path does exactly
 * what the runtime does, inside one critical section per event, bound entry
 * or exit:
 *   event/site:  if (!(bound.gen & 1)) return;        (relaxed peek: outside)
 *   all:         old = cmpxchg(bound.lock, 0, tag, acquire);
 *                if (old == tag) return;    (this thread holds it: see below)
 *                if (old != 0) { call the locking entry point; return; }
 *                ... the per-thread inline code on the shared storage; what
 *                is not plain calls __vigil_event_locked /
 *                __vigil_site_locked (the runtime takes the whole event in
 *                the same critical section) or, at the outermost exit with
 *                pending != 0, __vigil_bound_settle ...
 *                store(bound.lock, 0, release);
 * bound.gen and bound.depth are written with (relaxed) atomic stores, as
 * they are read without the lock.  A global bound's depth counts the
 * entries of every thread: the bound is open while any thread is inside.
 * A lock held by the thread itself is a signal handler that interrupted its
 * critical section, or the runtime's violation handler calling instrumented
 * code: waiting would never end, so its events, entries and exits of that
 * bound are ignored (they stay balanced: the handler returns before the
 * interrupted code goes on).
 */
#define vigil_lock_tag() ((uint64_t)(uintptr_t)__builtin_thread_pointer())
#define VIGIL_HDR_GEN 0
#define VIGIL_GEN_TOUCHING 0 /* with the instance registered: "Touching" below */
#define VIGIL_HDR_NEXT 8
#define VIGIL_HDR_FAST 16
#define VIGIL_HDR_BOUNDS 24
#define VIGIL_HDR_PASSES 32
#define VIGIL_HDR_SETTLED 40
#define VIGIL_HDR_FLAGS 40 /* 4 bytes: settled, dropped, reported, site */
#define VIGIL_HDR_EVER 64

/*
 * Inline log (values captured before the site).  An assertion whose every
 * alternative records (none forward, no free variables, not strict) only
 * records its events until the site: nothing is decided before it.  The
 * pass then appends such an event inline to a small log after the
 * captures, instead of calling the runtime; the runtime replays the log
 * (as the __vigil_event calls it stands for, in order) before it looks at
 * the instance for any other reason: an event, the site, the bound's end.
 * Layout at VIGIL_LOG_OFFSET, log_slots entries of log_stride words:
 *    0  uint64_t head     entries in use (low 32 bits) | epoch << 32
 *    8  entry[i]          word 0 the symbol, words 1.. its value words
 * The hook appends only when the instance is touched in this bound
 * (header.gen == bound.gen), the runtime has not seen the site in it
 * (header byte 43 == 0) and an entry is free; it writes the entry, then
 * claims it with one compare-and-swap of head (head -> head + 1), so a
 * signal handler that appended or drained in between makes it fail and
 * the event goes to the runtime instead (which replays the log first).
 * Anything else (full log: the overflow) calls __vigil_event.  The
 * runtime empties the log by bumping the epoch (no ABA for the hook's
 * compare-and-swap), and on touching the instance (a stale log of an
 * abandoned bound is forgotten).
 *
 * The site from the log (vigil/fastpath.h vigil_fast_log_site: one
 * alternative, guideline mode, Pre and Post disjoint).  The touch also
 * empties the log and sets fast[0] = 1 (state 0, the runtime has not
 * looked); the runtime's own touch leaves fast[0] = 0.  While fast[0] is 1
 * every event is logged (header byte 43 is not looked at).  The site hook,
 * seeing fast[0] == 1, replays the n entries in the log that carry its
 * values through the DFA; if that and the site are transitions it claims
 * the instance (fast[0]: 1 -> VIGIL_FAST_BUSY, compare-and-swap), writes
 * the captures, fast[1] = n + 1 and, when it entered done, settled /
 * passes / pending as a fast instance does, then fast[0] = the post-site
 * fast state.  From then on Pre events are still logged and Post events
 * take table steps.  The runtime, when it next looks at the instance in
 * the bound, sees fast[1] != 0: it replays entries [0, n) as events, takes
 * the site with the instance's captures, hands fast[0] to that check
 * (reclaim), then replays the rest (runtime/inline_log.c).
 */
#define VIGIL_LOG_SLOTS 8
#define VIGIL_LOG_OFFSET(nalts, ncaptures) VIGIL_INSTANCE_BYTES(nalts, ncaptures)
#define VIGIL_LOG_BYTES(slots, stride) ((8 + 8 * (slots) * (stride) + 63) / 64 * 64)

/* vigil_event_desc.kind */
enum vigil_event_kind {
  VIGIL_EV_START = 0,  /* first bound  */
  VIGIL_EV_END = 1,    /* second bound */
  VIGIL_EV_CALL = 2,   /* function entry: call(f), call(f(args))           */
  VIGIL_EV_RETURN = 3, /* function return: returnfrom(f), f(args) == v      */
  VIGIL_EV_SITE = 4,   /* TESLA_ASSERTION_SITE                             */
  VIGIL_EV_FIELD = 5   /* a store to a struct field: s->f = v, += v, -= v   */
};

/* vigil_event_desc.flags */
enum vigil_event_flags {
  VIGIL_EF_STATIC = 1u << 0, /* no captured value, free variable or key    */
  VIGIL_EF_CALLER = 1u << 1, /* instrumented at call sites (informative)   */
  VIGIL_EF_FREE = 1u << 2,   /* binds or matches free variables             */
  VIGIL_EF_KEY = 1u << 3     /* names the object of a struct automaton      */
};

/* vigil_value_desc.kind */
enum vigil_value_kind {
  VIGIL_VAL_ANY = 0,     /* ANY(type): matches every value                     */
  VIGIL_VAL_CONST = 1,   /* == constant, checked inline by the pass            */
  VIGIL_VAL_CAPTURE = 2, /* == captures[index] taken at the site               */
  VIGIL_VAL_FLAGS = 3,   /* flags(c): (v & c) == c, checked inline             */
  VIGIL_VAL_MASK = 4,    /* bitmask(c): (v & ~c) == 0, checked inline          */
  VIGIL_VAL_FREE = 5,    /* binds free variable index, or equals its value     */
  VIGIL_VAL_KEY = 6      /* the object of a struct automaton's instance        */
};

/* vigil_value_desc.role: which observed word a slot reads */
enum vigil_value_role {
  VIGIL_ROLE_ARG = 0,    /* argument arg_index (indirect: the word it points to) */
  VIGIL_ROLE_RETURN = 1, /* the return value                                   */
  VIGIL_ROLE_BASE = 2,   /* field stores: the struct's address                 */
  VIGIL_ROLE_VALUE = 3   /* field stores: the value stored ('=') or the change  */
};

/* One argument, return value or field-store word named by an event.  Values
 * travel as 64-bit words: the C value's bits, zero-extended (pointers: their
 * address).  The plugin converts captured expressions and constants the same
 * way, so equal C values compare equal whatever their signedness. */
struct vigil_value_desc {
  const char *text;     /* source text, e.g. "c", "0", "ANY(ptr)", "&o"   */
  uint64_t constant;    /* CONST, FLAGS, MASK                              */
  uint8_t kind;         /* enum vigil_value_kind                           */
  uint8_t role;         /* enum vigil_value_role                           */
  uint8_t arg_index;    /* ROLE_ARG: zero-based C parameter index          */
  uint8_t index;        /* CAPTURE: capture; FREE: free variable           */
  uint8_t indirect;     /* ROLE_ARG: bytes read through the pointer (&x)   */
  uint8_t reserved[3];
};

/* One symbol. */
struct vigil_event_desc {
  const char *function;                  /* NULL for the site; fields: "T.f" */
  const char *text;                      /* e.g. "mac_check(c, f) == 0"   */
  const struct vigil_value_desc *values; /* nvalues slots                 */
  uint8_t kind;                          /* enum vigil_event_kind         */
  uint8_t flags;                         /* enum vigil_event_flags        */
  uint8_t nvalues;
  uint8_t reserved[5];
};

/* vigil_state_desc.flags */
enum vigil_state_flags {
  VIGIL_SF_PAST_SITE = 1u << 0, /* phase 2: the site was reached in this pass */
  VIGIL_SF_FINAL = 1u << 1,     /* phase 2: the pass is complete              */
  VIGIL_SF_SITE_OK = 1u << 2,   /* phase 1: the site is a transition          */
  VIGIL_SF_INITIAL = 1u << 3    /* the state a window starts in               */
};

/* What the engine needs to know about one DFA state. */
struct vigil_state_desc {
  uint64_t need;     /* symbols that make progress here (reports: "allowed") */
  uint64_t newpass;  /* conditional: symbols that begin a new pass here      */
  uint8_t flags;     /* enum vigil_state_flags                               */
  uint8_t named;     /* the event a failure here names, VIGIL_NO_SYMBOL      */
  uint8_t early;     /* phase 1: the event that came before the site         */
  uint8_t dist;      /* fewest events to the end of the phase                */
  uint8_t reserved[4];
};

/* vigil_automaton.flags */
enum vigil_automaton_flags {
  VIGIL_AF_FORWARD = 1u << 0, /* no event before the site needs the site's values */
  VIGIL_AF_TAGS = 1u << 1,    /* the tags store can decide its site              */
  VIGIL_AF_FREE = 1u << 2,    /* binds free variables                            */
  VIGIL_AF_FAST = 1u << 3     /* plain steps are table steps (vigil/fastpath.h) */
};

/* One alternative, compiled. */
struct vigil_automaton {
  const uint16_t *next;                  /* nstates x nsymbols             */
  const struct vigil_state_desc *states; /* nstates entries, 0 initial     */
  const char *text;                      /* this alternative's text        */
  uint64_t alphabet;                     /* the symbols it observes        */
  uint64_t pre;                          /* symbols of the pattern before the site */
  uint64_t post;                         /* symbols after it               */
  uint16_t nstates;
  uint16_t post_start;                   /* the state the site leads to    */
  uint8_t flags;                         /* enum vigil_automaton_flags     */
  uint8_t reserved[3];
};

/* vigil_assertion.locality */
enum vigil_locality { VIGIL_PERTHREAD = 0, VIGIL_GLOBAL = 1 };

/* vigil_assertion.mode (docs/assertion-language.md, "Modes") */
enum vigil_mode {
  VIGIL_MODE_GUIDELINE = 0,   /* default: each value tuple checked once per bound */
  VIGIL_MODE_CONDITIONAL = 1, /* every pass through the site is checked     */
  VIGIL_MODE_STRICT = 2       /* the whole bound must follow the sequence   */
};

/* vigil_assertion.kind */
enum vigil_assertion_kind {
  VIGIL_KIND_INLINE = 0, /* TESLA_WITHIN / _PERTHREAD / _GLOBAL           */
  VIGIL_KIND_STRUCT = 2  /* TESLA_STRUCT_AUTOMATON: one instance per object */
};

/* One per assertion; writable because libvigil keeps a pointer to its own
 * bookkeeping in `runtime` (zero until the first event). */
struct vigil_assertion {
  const char *location;                  /* "file.c:12:5" of the site     */
  const char *text;                      /* the assertion as written      */
  const struct vigil_automaton *alternatives; /* nalternatives entries    */
  const struct vigil_event_desc *symbols;     /* nsymbols entries         */
  const char *const *capture_texts;      /* ncaptures source texts        */
  const char *const *free_texts;         /* nfree free variables          */
  void *runtime;                         /* owned by libvigil             */
  uint32_t id;                           /* dense, 0..N-1 per program     */
  uint8_t nalternatives;
  uint8_t nsymbols;
  uint8_t locality;                      /* enum vigil_locality           */
  uint8_t mode;                          /* enum vigil_mode               */
  uint8_t ncaptures;
  uint8_t nfree;
  uint8_t fast;                          /* 1: the pass inlined its fast path */
  uint8_t kind;                          /* enum vigil_assertion_kind     */
  uint8_t eager;                         /* 1: an eager instance ("Eager
                                            instances" above)            */
  uint8_t log_slots;                     /* inline log: entries, 0 = none */
  uint8_t log_stride;                    /* inline log: words per entry   */
  uint8_t reserved[1];
};

#ifdef __cplusplus
extern "C" {
#endif

/* `bound` is the assertion's bound group, `instance` its per-thread
 * (thread_local) or global storage.  `global` is 1 for global groups.
 * `symbol` is the symbol observed; `values` points to its nvalues words
 * (may be NULL when 0).  `captures` points to the assertion's ncaptures
 * words, or is NULL when the caller already stored them in the instance
 * (inline fast path). */
/* frame: the address of the return address of the function that enters
 * the bound (llvm.addressofreturnaddress), or null where the bound is not
 * one function's call and return or the target has no such intrinsic. */
void __vigil_bound_enter(struct vigil_bound *bound, int global,
                         void *const *frame);
void __vigil_bound_exit(struct vigil_bound *bound, int global);
/* Inline fast path: the outermost exit found bound->pending != 0.  It calls
 * this with depth still 1 (events raised by a handler during the check nest
 * in the bound), then sets pending = 0, bumps gen and sets depth = 0.  A
 * global group's inline exit calls it holding the bound's lock. */
void __vigil_bound_settle(struct vigil_bound *bound);
/* The same for a group with eager instances: `n` eager instances `insts`
 * of the assertions `as` (every eager member of the group, in the pass's
 * order).  The runtime registers them on their thread's first call, ends
 * those whose vigil_fast_end is RUNTIME, settles the touched list when
 * pending != 0 and sets pending = 0; the exit hook then counts nothing. */
void __vigil_bound_settle_eager(struct vigil_bound *bound, uint32_t n,
                                struct vigil_assertion *const *as,
                                void *const *insts);
/* A nested entry of an anchored group with eager instances that the inline
 * check could not call a nesting (vigil/abi.h "Abandoned bounds"): as
 * __vigil_bound_enter, and when the bound was abandoned the eager
 * instances that had begun (fast[0] not 1, done or outside) are dropped and
 * counted, and each is initialised for the new bound. */
void __vigil_bound_enter_eager(struct vigil_bound *bound, void *const *frame,
                               uint32_t n, struct vigil_assertion *const *as,
                               void *const *insts);
void __vigil_site_reached(struct vigil_assertion *a, struct vigil_bound *bound,
                          void *instance, const uint64_t *captures);
void __vigil_event(struct vigil_assertion *a, struct vigil_bound *bound,
                   void *instance, uint32_t symbol, const uint64_t *values);
/* Global groups inline: the caller holds bound->lock and releases it
 * after the call. */
void __vigil_site_locked(struct vigil_assertion *a, struct vigil_bound *bound,
                         void *instance, const uint64_t *captures);
void __vigil_event_locked(struct vigil_assertion *a, struct vigil_bound *bound,
                          void *instance, uint32_t symbol, const uint64_t *values);
/* Struct automata (kind VIGIL_KIND_STRUCT): every symbol, the two bounds
 * included; the runtime keeps one instance per object (the key slot). */
void __vigil_object_event(struct vigil_assertion *a, uint32_t symbol,
                          const uint64_t *values);

#ifdef __cplusplus
}
#endif

#endif /* VIGIL_ABI_H */
