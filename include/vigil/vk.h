/*
 * vigil/vk.h — the compiled model and the one step function of vigil's C
 * engines (the in-process monitors and the kernel's BPF monitor), in the
 * spirit of the kernel's da_monitor.h: the model is data, the engine is
 * tiny.
 *
 * The model is compiled once, by the model crate (cli/model/src/compiled.rs,
 * `Compiled::to_blob`), into one little-endian blob: a header, then
 * sections at 8-aligned offsets, no pointers.  Engines map it with
 * vk_model_open() and step an instance with vk_decide(), which is the
 * reference semantics (cli/model/src/compiled/step.rs) line for line; the
 * conformance corpus (tests/conformance) holds every engine to it.  The
 * engine owns the instances (thread-local, locked, hashed, a BPF map) and
 * the clock; vk.h owns what a step means.
 *
 * A plain automaton pays one table load per step: hybrid automata (clocks,
 * guards, invariants) and LTL models (a Büchi automaton stepped on atom
 * values, vk_ltl.h) are behind `kind`, constant per model.
 *
 * No libc.  The includer may define VK_TYPES_DEFINED after typedef'ing
 * vk_u8 .. vk_s64 (BPF uses the kernel's __u8 ..), and VK_INLINE.
 *
 * The step reads the tables only through the VK_* accessors below.  By
 * default they index the mapped blob; an engine whose tables live
 * elsewhere defines them first.  The BPF program keeps each section in a
 * map (the verifier needs a bounded lookup per access, not a pointer into
 * one big blob) and defines them as map lookups, with the header's
 * scalars as read-only globals: the same step, other storage, as the
 * kernel's da_monitor.h is one step over per-monitor tables.
 * Bump VK_ABI with any change of the structures below; the Rust writer
 * checks the same sizes (cli/model/src/compiled/blob.rs).
 */
#ifndef VIGIL_VK_H
#define VIGIL_VK_H

#ifndef VK_TYPES_DEFINED
#include <stdint.h>
typedef uint8_t vk_u8;
typedef uint16_t vk_u16;
typedef uint32_t vk_u32;
typedef uint64_t vk_u64;
typedef int64_t vk_s64;
#endif

#ifndef VK_INLINE
#define VK_INLINE static inline __attribute__((always_inline))
#endif

#define VK_MAGIC 0x314b5456u /* "VTK1" */
#define VK_ABI 3

#define VK_NONE 0xffffu   /* no transition; no guard */
#define VK_FORGET 0xfffeu /* a rule's event: end the instance */
#define VK_NO_FIELD 0xffu
#define VK_MAX_FIELDS 16
#define VK_MAX_CLOCKS 2
#define VK_MAX_ENVS 4
#define VK_NEVER 0xffffffffffffffffull

enum vk_kind { VK_DA = 0, VK_HA = 1, VK_LTL = 2 };
enum vk_scope { VK_GLOBAL = 0, VK_CPU = 1, VK_TASK = 2, VK_OBJECT = 3 };
enum vk_mode { VK_PLAIN = 0, VK_START = 1, VK_RUN = 2 };
enum vk_op { VK_EQ = 0, VK_NE = 1, VK_LT = 2, VK_LE = 3, VK_GT = 4, VK_GE = 5 };
enum vk_opnd { VK_FIELD = 0, VK_CONST = 1, VK_CLOCK = 2, VK_ENV = 3 };
enum vk_verdict {
	VK_OK = 0,
	VK_V_EVENT = 1,     /* the event is not allowed in the state */
	VK_V_GUARD = 2,     /* the edge's guard is false */
	VK_V_INVARIANT = 3, /* time passed the state's invariant */
	VK_V_NOT_FINAL = 4, /* forget in a state that is not final */
	VK_V_LTL = 5,       /* no state of the automaton accepts the atoms */
};
/* What an LTL rule does to its atom (the kernel's ltl_atom_pulse/set/update). */
enum vk_atom_op { VK_ATOM_PULSE = 0, VK_ATOM_SET = 1, VK_ATOM_UPDATE = 2 };

struct vk_header {
	vk_u32 magic, size;
	vk_u16 abi;
	vk_u8 kind, scope;
	vk_u16 nstates, nevents, nrules, ncmps, nguards, nsources;
	vk_u8 has_start, check_exit, nclocks, nenvs;
	vk_u32 off_next;  /* vk_u16[nstates * nevents] */
	vk_u32 off_final; /* vk_u8[nstates] */
	vk_u32 off_edge;  /* struct vk_edge[nstates * nevents], VK_HA only */
	vk_u32 off_inv;   /* struct vk_inv[nstates], VK_HA only */
	vk_u32 off_cmp, off_guard, off_rule;
	vk_u32 off_names, names_len; /* NUL-terminated: see vk_model_names */
	vk_u32 off_ltl;              /* struct vk_ltl, VK_LTL only; 0: none */
	vk_u32 reserved[3];
};

/* lhs OP rhs; a run ending at end_term is an AND, a guard an OR of runs. */
struct vk_cmp {
	vk_u8 op, lhs_kind, lhs, rhs_kind, rhs, end_term;
	vk_u16 pad;
	vk_s64 value; /* the constant when rhs_kind is VK_CONST */
};

struct vk_guard {
	vk_u16 first, n;
};

struct vk_edge {
	vk_u16 guard; /* index into guards, or VK_NONE */
	vk_u8 resets; /* bit c: clock c is reset */
	vk_u8 pad;
};

struct vk_inv {
	vk_u8 clock, present;
	vk_u16 pad0;
	vk_u32 pad1;
	vk_u64 expires_after; /* ns after the clock's reset */
};

struct vk_rule {
	vk_u16 event; /* model event (an LTL model's: its atom) or VK_FORGET */
	vk_u8 mode, key;
	vk_u16 cond_first, cond_n;
	vk_u8 env_fields[VK_MAX_ENVS];
	vk_u16 source;
	vk_u8 atom_op, atom_value; /* VK_LTL: enum vk_atom_op, and the value it sets */
	vk_u32 line, pad1;
	vk_u64 reserved; /* 32 bytes: a power-of-two stride for the step's lookup */
};

/* An LTL model's automaton, at off_ltl: this, then struct vk_ltl_state
 * [nstates], then struct vk_ltl_term[nterms]. */
/* An engine may lower these loop bounds (BPF: the verifier's budget) if it
 * refuses the models beyond them. */
#ifndef VK_LTL_MAX_STATES
#define VK_LTL_MAX_STATES 32 /* the kernel's RV_MAX_BA_STATES: a bit each */
#endif
#ifndef VK_LTL_MAX_TERMS
#define VK_LTL_MAX_TERMS 16 /* per label: the step's constant loop bound */
#endif
struct vk_ltl {
	vk_u8 nstates; /* = the header's nstates */
	vk_u8 natoms;  /* = the header's nevents, at most 32 */
	vk_u16 nterms;
	vk_u32 init; /* bit s: state s is initial */
};

/* A state's label holds when one of terms[first .. first + nterms] holds,
 * or, if negated, when none does: the shorter of the two forms
 * (cli/model/src/compiled/labels.rs). */
struct vk_ltl_state {
	vk_u32 succ; /* bit t: state t is a successor */
	vk_u16 first;
	vk_u8 nterms, negated;
};

/* The atoms in pos are true and those in neg false. */
struct vk_ltl_term {
	vk_u32 pos, neg;
};

/*
 * One instance.  DA engines may store `word` alone.  An LTL instance
 * (Rust's Inst: word, atoms, known) keeps `known` where the others keep
 * zero padding, and `atoms` in the clocks' place (an LTL model has none);
 * its expiry stays VK_NEVER.
 */
struct vk_inst {
	vk_u32 word;  /* 0: not monitored, else state + 1; LTL: the set of Büchi states, 0: not started */
	vk_u32 known; /* LTL: which atoms have a value; 0 for the other kinds */
	union {
		vk_u64 reset_ns[VK_MAX_CLOCKS];
		vk_u32 atoms; /* LTL: the atoms' values (where known) */
	};
	vk_u64 expiry_ns;
};

struct vk_result {
	vk_u8 verdict;
	vk_u8 pad;
	vk_u16 from;   /* the state the violation happened in */
	vk_u16 guard;  /* VK_V_GUARD: which */
	vk_u32 states; /* VK_V_LTL: the set of states it was in */
};

_Static_assert(sizeof(struct vk_header) == 80, "vk_header layout");
_Static_assert(sizeof(struct vk_cmp) == 16, "vk_cmp layout");
_Static_assert(sizeof(struct vk_guard) == 4, "vk_guard layout");
_Static_assert(sizeof(struct vk_edge) == 4, "vk_edge layout");
_Static_assert(sizeof(struct vk_inv) == 16, "vk_inv layout");
_Static_assert(sizeof(struct vk_rule) == 32, "vk_rule layout");
_Static_assert(sizeof(struct vk_inst) == 32, "vk_inst layout");
_Static_assert(sizeof(struct vk_ltl) == 8, "vk_ltl layout");
_Static_assert(sizeof(struct vk_ltl_state) == 8, "vk_ltl_state layout");
_Static_assert(sizeof(struct vk_ltl_term) == 8, "vk_ltl_term layout");
_Static_assert(sizeof(struct vk_result) == 12, "vk_result: small, returned by value");

/* The blob's sections, as pointers. */
struct vk_model {
	const struct vk_header *h;
	const vk_u16 *next;
	const vk_u8 *finals;
	const struct vk_edge *edges;
	const struct vk_inv *inv;
	const struct vk_cmp *cmps;
	const struct vk_guard *guards;
	const struct vk_rule *rules;
	const char *names;
	const struct vk_ltl *ltl; /* VK_LTL only, else 0 */
	const struct vk_ltl_state *ltl_states;
	const struct vk_ltl_term *ltl_terms;
	/* The header's fields a step reads, copied here by vk_model_open so
	 * that a plain step loads nothing it does not need. */
	vk_u16 nevents;
	vk_u8 has_start, kind;
};

/* Table accessors (see the top of this file). */
#ifndef VK_NEXT
#define VK_NEXT(m, cell) ((m)->next[cell])
#define VK_FINAL(m, state) ((m)->finals[state])
#define VK_CMP(m, i) (&(m)->cmps[i])
#define VK_EDGE(m, cell) ((m)->edges[cell])
#define VK_INV(m, state) (&(m)->inv[state])
#define VK_GUARD(m, g) (&(m)->guards[g])
#define VK_NEVENTS(m) ((m)->nevents)
#define VK_HAS_START(m) ((m)->has_start)
#define VK_KIND(m) ((m)->kind)
#endif
/* Separately, so that an engine that overrides the others and runs no
 * LTL model (BPF today) still compiles. */
#ifndef VK_LTL
#define VK_LTL(m) ((m)->ltl)
#define VK_LTL_STATE(m, s) (&(m)->ltl_states[s])
#define VK_LTL_TERM(m, t) (&(m)->ltl_terms[t])
#endif
/* The most conditions a rule is checked for: a verifier needs a constant
 * loop bound, the model crate refuses more (cli/model/src/compiled). */
#ifndef VK_MAX_RULE_CONDS
#define VK_MAX_RULE_CONDS 0xffffu
#endif
/* Likewise for a guard's comparisons (BPF refuses longer guards). */
#ifndef VK_MAX_GUARD_CMPS
#define VK_MAX_GUARD_CMPS 0xffffu
#endif

#include "vk_step.h"

#endif
