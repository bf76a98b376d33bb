/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * Types shared by the BPF program (monitor.bpf.c) and its loader
 * (monitor.c).  The layout is described in bpf/README.md.
 */
#ifndef VIGIL_BPF_MONITOR_H
#define VIGIL_BPF_MONITOR_H

#include "fields.h"

/* Limits of one monitor (the compiled model's own are 65533 states and
 * events, u16 cells). */
#define VIGIL_MAX_STATES 65533
#define VIGIL_MAX_EVENTS 65533
#define VIGIL_MAX_CELLS (1u << 22) /* states x events: 8 MiB of table */
#define VIGIL_MAX_RULES 8 /* per source */
#define VIGIL_MAX_CONDS 4 /* per rule */
#define VIGIL_STACK_DEPTH 32
/* An LTL instance is one u64: 16 bits of Büchi states, 24 of atom values,
 * 24 of known atoms. */
#define VIGIL_LTL_MAX_STATES 16
#define VIGIL_LTL_MAX_ATOMS 24
#define VIGIL_LTL_MAX_TERMS 4 /* per label: the verifier explores every one */
/* A hybrid automaton's guard: at most this many comparisons. */
#define VIGIL_MAX_GUARD_CMPS 8
/* vigil_violation.rule of an invariant a timer found expired. */
#define VIGIL_RULE_TIMER 0xffffffffu
#define VIGIL_LTL_ATOM_MASK 0xffffffu

/*
 * The model is the compiled model of include/vigil/vk.h (cli/model/src/
 * compiled.rs writes it; the loader maps it with vk_model_open and copies
 * its sections into the maps): its rules, conditions and markers are the
 * same structs here as in every other engine.
 */
#ifndef VK_TYPES_DEFINED
#define VK_TYPES_DEFINED
typedef __u8 vk_u8;
typedef __u16 vk_u16;
typedef __u32 vk_u32;
typedef __u64 vk_u64;
typedef __s64 vk_s64;
#endif
#include "vigil/vk.h"

/* Value of the `vigil_rules` map: the rules of one source slot (copied
 * from the compiled model), tried in order; every rule whose conditions
 * hold is applied.  id: the rule's index in the compiled model, for
 * reports. */
struct vigil_rules {
	__u32 n;
	__u32 id[VIGIL_MAX_RULES];
	__u32 pad;
	struct vk_rule rule[VIGIL_MAX_RULES];
};

/* The value of `vigil_test_event`: one event of the conformance corpus,
 * run through the program `conform_event` (monitor_conform.c). */
struct vigil_test_event {
	__u32 slot; /* the source slot; VIGIL_TEST_TICK: only expire, at ts */
	__u32 armed; /* set by the loader, cleared by the program that runs it */
	__u64 ts;   /* the event's time: hybrid automata's now */
	__u64 f[VIGIL_MAX_FIELDS];
};
#define VIGIL_TEST_TICK 0xffffffffu

/* Indices of the per-cpu `counters` array. */
enum vigil_counter {
	VIGIL_CNT_SEEN = 0,      /* source hits (handler runs) */
	VIGIL_CNT_PROCESSED = 1, /* automaton steps: start, transition or violation */
	VIGIL_CNT_VIOLATIONS = 2,
	VIGIL_CNT_DROPS = 3,   /* violations lost: ring buffer full */
	VIGIL_CNT_STARTS = 4,  /* instances started */
	VIGIL_CNT_NOINST = 5,  /* instance storage failed (hash full / bad cpu key) */
	VIGIL_NR_COUNTERS = 8,
};

/* One ring-buffer record per violation. */
struct vigil_violation {
	__u64 ktime; /* bpf_ktime_get_ns() */
	__u64 key;
	__u32 kind;  /* enum vk_verdict */
	__u32 state; /* the state the violation happened in */
	__u32 event; /* model event, or VK_FORGET */
	__u32 rule;  /* rule index in the compiled model */
	__u32 source;
	__u32 cpu;
	__u32 pid; /* thread id */
	__u32 tgid;
	__s32 kstack_sz; /* bytes, or a negative error */
	__s32 ustack_sz;
	/* call: probes fire on a function's first instruction, before it has
	 * a frame: the frame-pointer walk skips the immediate caller, so its
	 * return address (read at the stack pointer) is recorded here. */
	__u64 entry_ret;
	/* A hybrid automaton's invariant found expired by a timer (no rule, no
	 * event; rule is VIGIL_RULE_TIMER): when it expired.  0 otherwise. */
	__u64 at;
	char comm[16];
	__u64 kstack[VIGIL_STACK_DEPTH];
	__u64 ustack[VIGIL_STACK_DEPTH];
};

#endif
