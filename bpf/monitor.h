/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * Types shared by the BPF program (monitor.bpf.c) and its loader
 * (monitor.c).  The layout is described in bpf/README.md.
 */
#ifndef VIGIL_BPF_MONITOR_H
#define VIGIL_BPF_MONITOR_H

#include "fields.h"

/* Limits of one monitor. */
#define VIGIL_MAX_STATES 255
#define VIGIL_MAX_EVENTS 255
#define VIGIL_MAX_RULES 8 /* per source */
#define VIGIL_MAX_CONDS 4 /* per rule */
#define VIGIL_STACK_DEPTH 32

/* Transition table entry for "event not allowed". */
#define VIGIL_INVALID 0xffff

/* rule.event for `forget` rules. */
#define VIGIL_EV_FORGET 0xfffe

/* rule.key when the instance has no key (scope global). */
#define VIGIL_KEY_NONE 0xff

enum vigil_scope {
	VIGIL_SCOPE_GLOBAL = 0,
	VIGIL_SCOPE_CPU = 1,
	VIGIL_SCOPE_TASK = 2,
	VIGIL_SCOPE_OBJECT = 3,
};

enum vigil_mode {
	VIGIL_MODE_PLAIN = 0,
	VIGIL_MODE_START = 1,
	VIGIL_MODE_RUN = 2,
};

enum vigil_op {
	VIGIL_OP_EQ = 0,
	VIGIL_OP_NE,
	VIGIL_OP_LT,
	VIGIL_OP_LE,
	VIGIL_OP_GT,
	VIGIL_OP_GE,
};

struct vigil_cond {
	__u8 field;
	__u8 op;
	__u8 pad[6];
	__s64 value;
};

struct vigil_rule {
	__u16 event; /* model event index, or VIGIL_EV_FORGET */
	__u8 mode;   /* enum vigil_mode */
	__u8 key;    /* field index, or VIGIL_KEY_NONE */
	__u8 ncond;
	__u8 pad[3];
	__u32 id; /* the rule's index in the spec, for reports */
	__u32 pad2;
	struct vigil_cond cond[VIGIL_MAX_CONDS];
};

/* Value of the `rules` map: the rules of one source slot, tried in order;
 * every rule whose conditions hold is applied. */
struct vigil_rules {
	__u32 n;
	__u32 pad;
	struct vigil_rule rule[VIGIL_MAX_RULES];
};

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

enum vigil_violation_kind {
	VIGIL_V_EVENT = 0,     /* event not allowed in the state */
	VIGIL_V_NOT_FINAL = 1, /* `forget` on an instance not in a final state */
};

/* One ring-buffer record per violation. */
struct vigil_violation {
	__u64 ktime; /* bpf_ktime_get_ns() */
	__u64 key;
	__u32 kind;  /* enum vigil_violation_kind */
	__u32 state; /* the state the event was not allowed in */
	__u32 event; /* model event, or VIGIL_EV_FORGET */
	__u32 rule;  /* rule index in the spec */
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
	char comm[16];
	__u64 kstack[VIGIL_STACK_DEPTH];
	__u64 ustack[VIGIL_STACK_DEPTH];
};

#endif
