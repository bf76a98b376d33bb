// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * vigil's generic eBPF monitor: one table-driven engine for every model.
 *
 * The model is data: the loader (bpf/monitor.c) copies the sections of the
 * compiled model (include/vigil/vk.h) into the maps below, and the decision
 * is vk_step_word() from vk_step.h, the same step the in-process runtime
 * and the conformance runner use, reading the tables through accessors
 * defined here as map lookups.  Each handler fills the source's fields in
 * the order of bpf/fields.h (= cli/model/src/sources.rs), then the common
 * fields, and runs the shared rule loop; what a step means (plain, start
 * and run rules, forget, the reset after a violation, as the kernel's
 * include/rv/da_monitor.h) is written once, in vk_step.h and its Rust twin
 * cli/model/src/compiled/step.rs.  This file owns the instances (maps,
 * compare-and-swap) and the reports.
 *
 * The license is GPL-compatible because tp_btf programs need it.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "Dual MIT/GPL";

/* Set by the loader before loading (read-only: the verifier prunes the
 * branches of the other scopes). */
const volatile __u32 vigil_kind = 0; /* enum vk_kind */
/* 0 under --conform: the events' own times drive expiry, not timers. */
const volatile __u32 vigil_use_timers = 1;
const volatile __u32 vigil_nevents = 1;
const volatile __u32 vigil_scope = 0;
const volatile __u32 vigil_has_start_rules = 0;
const volatile __u32 vigil_reactor_stop = 0;
const volatile __u32 vigil_ncpus = 1;

/* vk_step.h's table accessors, as map lookups (defined below the maps). */
struct vk_cmp;
struct vk_edge;
struct vk_inv;
struct vk_guard;
struct vk_ltl;
struct vk_ltl_state;
struct vk_ltl_term;
static __always_inline __u16 vigil_next_at(__u32 cell);
static __always_inline __u8 vigil_final_at(__u32 state);
static __always_inline const struct vk_cmp *vigil_cmp_at(__u32 i);
static __always_inline struct vk_edge vigil_edge_at(__u32 cell);
static __always_inline const struct vk_inv *vigil_inv_at(__u32 state);
static __always_inline const struct vk_guard *vigil_guard_at(__u32 g);
static __always_inline const struct vk_ltl *vigil_ltl_at(void);
static __always_inline const struct vk_ltl_state *vigil_ltl_state_at(__u32 s);
static __always_inline const struct vk_ltl_term *vigil_ltl_term_at(__u32 t);
#define VK_NEXT(m, cell) vigil_next_at(cell)
#define VK_FINAL(m, state) vigil_final_at(state)
#define VK_CMP(m, i) vigil_cmp_at(i)
#define VK_EDGE(m, cell) vigil_edge_at(cell)
#define VK_INV(m, state) vigil_inv_at(state)
#define VK_GUARD(m, g) vigil_guard_at(g)
#define VK_NEVENTS(m) vigil_nevents
#define VK_HAS_START(m) vigil_has_start_rules
#define VK_KIND(m) vigil_kind
#define VK_MAX_GUARD_CMPS VIGIL_MAX_GUARD_CMPS
#define VK_MAX_RULE_CONDS VIGIL_MAX_CONDS
#define VK_LTL_MAX_STATES VIGIL_LTL_MAX_STATES
#define VK_LTL_MAX_TERMS VIGIL_LTL_MAX_TERMS
/* All ones, but not known to the verifier (a writable global): a state
 * bit ANDed with it is opaque, so paths that built different sets of
 * Büchi states look alike and are pruned, instead of 2^16 of them being
 * verified apart (vk_ltl.h, VK_LTL_BIT). */
__u32 vigil_opaque_ones = 0xffffffff;
#define VK_LTL_BIT(s) ((1u << (s)) & vigil_opaque_ones)
#define VK_LTL(m) vigil_ltl_at()
#define VK_LTL_STATE(m, s) vigil_ltl_state_at(s)
#define VK_LTL_TERM(m, t) vigil_ltl_term_at(t)

#include "monitor.h"

/* With reactor_stop: set by the first violation; everything stops. */
__u32 vigil_stopped = 0;

/* The compiled model's `next` section: next[state * nevents + event], or
 * VK_NONE.  Sized nstates * nevents by the loader. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u16);
} vigil_next SEC(".maps");

/* Its `final` section: 1 for the final (marked) states. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u8);
} vigil_finals SEC(".maps");

/* Its `cmp` section: the rules' conditions. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct vk_cmp);
} vigil_cmps SEC(".maps");

/* An LTL model's automaton: its header, states and label terms. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct vk_ltl);
} vigil_ltl SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct vk_ltl_state);
} vigil_ltl_states SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct vk_ltl_term);
} vigil_ltl_terms SEC(".maps");

static __always_inline const struct vk_ltl *vigil_ltl_at(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&vigil_ltl, &zero);
}

static __always_inline const struct vk_ltl_state *vigil_ltl_state_at(__u32 s)
{
	return bpf_map_lookup_elem(&vigil_ltl_states, &s);
}

static __always_inline const struct vk_ltl_term *vigil_ltl_term_at(__u32 t)
{
	return bpf_map_lookup_elem(&vigil_ltl_terms, &t);
}

/* A hybrid automaton's sections: per cell its edge (guard, resets), per
 * state its invariant, and the guards. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct vk_edge);
} vigil_edges SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct vk_inv);
} vigil_invs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct vk_guard);
} vigil_guards SEC(".maps");

static __always_inline struct vk_edge vigil_edge_at(__u32 cell)
{
	struct vk_edge *e = bpf_map_lookup_elem(&vigil_edges, &cell);

	return e ? *e : (struct vk_edge){ .guard = VK_NONE };
}

static __always_inline const struct vk_inv *vigil_inv_at(__u32 state)
{
	return bpf_map_lookup_elem(&vigil_invs, &state);
}

static __always_inline const struct vk_guard *vigil_guard_at(__u32 g)
{
	return bpf_map_lookup_elem(&vigil_guards, &g);
}

static __always_inline __u16 vigil_next_at(__u32 cell)
{
	__u16 *n = bpf_map_lookup_elem(&vigil_next, &cell);

	return n ? *n : VK_NONE;
}

static __always_inline __u8 vigil_final_at(__u32 state)
{
	__u8 *f = bpf_map_lookup_elem(&vigil_finals, &state);

	return f ? *f : 1;
}

static __always_inline const struct vk_cmp *vigil_cmp_at(__u32 i)
{
	return bpf_map_lookup_elem(&vigil_cmps, &i);
}

/* Per source slot (tracepoint catalogue index, then uprobe slots): its rules. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, VIGIL_NR_SOURCES);
	__type(key, __u32);
	__type(value, struct vigil_rules);
} vigil_rules SEC(".maps");

/*
 * Instance state, one 32-bit word: 0 = not monitored, else state + 1.
 * Updated with compare-and-swap (see README: why not bpf_spin_lock).
 */

/* Scope cpu: one word per cpu.  The key (normally the `cpu` field, i.e. the
 * current cpu) picks the cpu's copy with bpf_map_lookup_percpu_elem, so a
 * rule may also be keyed by another cpu (e.g. target_cpu). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} vigil_cpu_state SEC(".maps");

/* Scope global: one word. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} vigil_global_state SEC(".maps");

/* Scopes task and object: keyed by the key field's value.  LRU: when full,
 * the least recently used instance is forgotten (it restarts at its next
 * start event).  max_entries is set by the loader (spec `instances`). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1);
	__type(key, __u64);
	__type(value, __u32);
} vigil_inst_state SEC(".maps");

/* LTL instances (scopes task and object): the set of Büchi states, the
 * atoms' values and which are known, packed into one word so that a step
 * is still one compare-and-swap (VIGIL_LTL_* in monitor.h; the loader
 * refuses automata that do not fit). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1);
	__type(key, __u64);
	__type(value, __u64);
} vigil_ltl_inst SEC(".maps");

/* return:FUNC sources: the arguments saved at the function's entry, per
 * thread and slot (a recursive call overwrites the outer call's). */
struct saved_key {
	__u64 pid_tgid;
	__u32 slot;
	__u32 pad;
};

struct saved_args {
	__u64 arg[6];
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct saved_key);
	__type(value, struct saved_args);
} vigil_saved_args SEC(".maps");

/* Violations to user space. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} vigil_violations SEC(".maps");

/* enum vigil_counter, per cpu. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, VIGIL_NR_COUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} vigil_counters SEC(".maps");

/* Where a handler runs: a tracepoint, a uprobe at a function's entry, or a
 * uretprobe. */
#define KERNEL 0
#define USER_ENTRY 1
#define USER_RETURN 2

/* A uprobe cookie with this bit only saves the arguments for a return:FUNC
 * source (slot in the low bits). */
#define SAVE_ARGS 0x80000000u

/* libbpf 1.1 has no PT_REGS_PARM6. */
#ifndef PT_REGS_PARM6
#if defined(bpf_target_x86)
#define PT_REGS_PARM6(x) (__PT_REGS_CAST(x)->r9)
#elif defined(bpf_target_arm64)
#define PT_REGS_PARM6(x) (__PT_REGS_CAST(x)->regs[5])
#else
#define PT_REGS_PARM6(x) 0
#endif
#endif

/* Compare-and-swap retries, as the kernel's MAX_DA_RETRY_RACING_EVENTS. */
#define MAX_RETRY 3

static __always_inline void count(__u32 which)
{
	__u64 *c = bpf_map_lookup_elem(&vigil_counters, &which);

	if (c)
		*c += 1;
}

static __always_inline bool keyed_by_hash(void)
{
	return vigil_scope == VK_TASK || vigil_scope == VK_OBJECT;
}

/* The instance's word, or NULL: not stored yet (hashed scopes), or a cpu
 * key beyond the possible cpus. */
static __always_inline __u32 *inst_lookup(__u64 key)
{
	__u32 zero = 0;

	if (vigil_scope == VK_GLOBAL)
		return bpf_map_lookup_elem(&vigil_global_state, &zero);
	if (vigil_scope == VK_CPU) {
		if (key >= vigil_ncpus)
			return NULL;
		return bpf_map_lookup_percpu_elem(&vigil_cpu_state, &zero, (__u32)key);
	}
	return bpf_map_lookup_elem(&vigil_inst_state, &key);
}

enum store_result { INST_STORED, INST_RACED, INST_NO_STORAGE };

/*
 * Publish the step from `cur` to `w`: a compare-and-swap on the word, so
 * that two cpus stepping one instance never both win (the loser steps
 * again from what the winner wrote, as the kernel's da_monitor retries).
 * Hashed scopes create the entry with BPF_NOEXIST and delete it when the
 * instance ends: an entry holding 0 is the same as none, deleting only
 * gives the LRU its slot back.
 */
static __always_inline enum store_result inst_store(__u64 key, __u32 *p, __u32 cur, __u32 w)
{
	if (!p) {
		if (!keyed_by_hash())
			return INST_NO_STORAGE;
		if (bpf_map_update_elem(&vigil_inst_state, &key, &w, BPF_NOEXIST) == 0)
			return INST_STORED;
		return bpf_map_lookup_elem(&vigil_inst_state, &key) ? INST_RACED : INST_NO_STORAGE;
	}
	if (__sync_val_compare_and_swap(p, cur, w) != cur)
		return INST_RACED;
	if (w == 0 && keyed_by_hash())
		bpf_map_delete_elem(&vigil_inst_state, &key);
	return INST_STORED;
}

/* A record for the ring buffer, or NULL (stopped, or the buffer is full:
 * counted). */
static __always_inline struct vigil_violation *record(struct vk_result res, __u32 event, __u32 id,
						       __u32 src, __u64 key)
{
	struct vigil_violation *v;

	if (vigil_reactor_stop && __sync_val_compare_and_swap(&vigil_stopped, 0, 1) != 0)
		return NULL;
	count(VIGIL_CNT_VIOLATIONS);
	v = bpf_ringbuf_reserve(&vigil_violations, sizeof(*v), 0);
	if (!v) {
		count(VIGIL_CNT_DROPS);
		return NULL;
	}
	v->ktime = bpf_ktime_get_ns();
	v->key = key;
	v->kind = res.verdict;
	v->state = res.verdict == VK_V_LTL ? res.states : res.from;
	v->event = event;
	v->rule = id;
	v->source = src;
	v->cpu = bpf_get_smp_processor_id();
	v->entry_ret = 0;
	v->at = 0;
	v->kstack_sz = 0;
	v->ustack_sz = 0;
	return v;
}

static __always_inline void report(void *ctx, struct vk_result res, const struct vk_rule *r, __u32 id,
				   __u32 src, __u64 key, int user)
{
	struct vigil_violation *v = record(res, r->event, id, src, key);
	__u64 pid_tgid = bpf_get_current_pid_tgid();

	if (!v)
		return;
	v->pid = (__u32)pid_tgid;
	v->tgid = pid_tgid >> 32;
	bpf_get_current_comm(v->comm, sizeof(v->comm));
	if (user) {
		v->ustack_sz = bpf_get_stack(ctx, v->ustack, sizeof(v->ustack), BPF_F_USER_STACK);
		if (user == USER_ENTRY)
			bpf_probe_read_user(&v->entry_ret, sizeof(v->entry_ret),
					    (void *)PT_REGS_SP((struct pt_regs *)ctx));
	} else {
		v->kstack_sz = bpf_get_stack(ctx, v->kstack, sizeof(v->kstack), 0);
	}
	bpf_ringbuf_submit(v, 0);
}

/* One rule whose conditions hold: vk_step_word on its instance's word,
 * published with inst_store; the report only once the step is stored (a
 * step lost to a race is redone, not reported twice). */
static __always_inline void apply(void *ctx, const struct vk_rule *r, __u32 id, const __u64 *f,
				  __u32 src, int user)
{
	__u64 key = (__u64)vk_key_of(r, (const vk_s64 *)f);

	for (int i = 0; i < MAX_RETRY; i++) {
		__u32 *p = inst_lookup(key);
		__u32 cur = p ? *(volatile __u32 *)p : 0, w = cur;
		struct vk_result res = vk_step_word(0, r, &w);
		enum store_result st;

		if (cur == 0 && w == 0 && res.verdict == VK_OK)
			return; /* not monitored, and not started by this rule */
		st = inst_store(key, p, cur, w);
		if (st == INST_RACED)
			continue;
		if (st == INST_NO_STORAGE) {
			count(VIGIL_CNT_NOINST);
			return;
		}
		count(VIGIL_CNT_PROCESSED);
		if (cur == 0 && w != 0)
			count(VIGIL_CNT_STARTS);
		if (res.verdict != VK_OK)
			report(ctx, res, r, id, src, key, user);
		return;
	}
}

/*
 * One LTL step on a packed instance (16 bits of Büchi states, 24 of atom
 * values, 24 of known atoms): vk_ltl_decide on it unpacked.  A global
 * function, so that the verifier checks it once per program, not once per
 * rule and retry it is inlined into (the label loops multiplied by 8 rules
 * and 3 retries exceed its budget); hence scalars in and the verdict
 * through a pointer to the caller's stack.
 */
__noinline __u64 vigil_ltl_step(__u64 cur, __u32 event, __u32 atom_op, __u32 atom_value,
				struct vk_result *res)
{
	struct vk_inst in = { .word = cur & 0xffff, .known = (cur >> 40) & VIGIL_LTL_ATOM_MASK };
	struct vk_rule r = { .event = (__u16)event, .atom_op = (__u8)atom_op, .atom_value = (__u8)atom_value };

	if (!res)
		return cur;
	in.atoms = (cur >> 16) & VIGIL_LTL_ATOM_MASK;
	*res = vk_ltl_decide(0, &r, &in);
	return (__u64)in.word | (__u64)(in.atoms & VIGIL_LTL_ATOM_MASK) << 16 |
	       (__u64)(in.known & VIGIL_LTL_ATOM_MASK) << 40;
}

/* An LTL rule: vigil_ltl_step on the instance's word, published by
 * compare-and-swap as for automata.  An instance with nothing known and no
 * state is deleted (the kernel's task exit). */
static __always_inline void apply_ltl(void *ctx, const struct vk_rule *r, __u32 id, const __u64 *f,
				      __u32 src, int user)
{
	__u64 key = (__u64)vk_key_of(r, (const vk_s64 *)f);

	for (int i = 0; i < MAX_RETRY; i++) {
		__u64 *p = bpf_map_lookup_elem(&vigil_ltl_inst, &key);
		__u64 cur = p ? *(volatile __u64 *)p : 0, w;
		struct vk_result res = {};

		w = vigil_ltl_step(cur, r->event, r->atom_op, r->atom_value, &res);
		if (w == cur && res.verdict == VK_OK)
			return;
		if (!p) {
			if (bpf_map_update_elem(&vigil_ltl_inst, &key, &w, BPF_NOEXIST))
				continue;
		} else if (__sync_val_compare_and_swap(p, cur, w) != cur) {
			continue;
		} else if (w == 0) {
			bpf_map_delete_elem(&vigil_ltl_inst, &key);
		}
		count(VIGIL_CNT_PROCESSED);
		if (cur == 0)
			count(VIGIL_CNT_STARTS);
		if (res.verdict != VK_OK)
			report(ctx, res, r, id, src, key, user);
		return;
	}
}

#include "monitor_hybrid.bpf.h"

/* The shared rule loop: f holds the source's nown own fields; the common
 * fields are appended here (nown < 0: f holds them already, the
 * conformance program). */
static __always_inline int run_rules(void *ctx, __u32 src, __u64 *f, const int nown, int user)
{
	__u64 now = 0;
	struct vigil_rules *rs;
	__u64 id;
	__u32 n;

	count(VIGIL_CNT_SEEN);
	if (vigil_reactor_stop && vigil_stopped)
		return 0;
	if (nown >= 0) {
		id = bpf_get_current_pid_tgid();
		f[nown] = (__u32)id;
		f[nown + 1] = id >> 32;
		f[nown + 2] = bpf_get_smp_processor_id();
	}

	rs = bpf_map_lookup_elem(&vigil_rules, &src);
	if (!rs)
		return 0;
	n = rs->n;
	for (int i = 0; i < VIGIL_MAX_RULES; i++) {
		if (i >= n)
			break;
		if (!vk_rule_holds(0, &rs->rule[i], (const vk_s64 *)f))
			continue;
		if (vigil_kind == VK_LTL) {
			apply_ltl(ctx, &rs->rule[i], rs->id[i], f, src, user);
		} else if (vigil_kind == VK_HA) {
			/* Uprobe programs cannot use maps with timers or locks: the
			 * constant `user` drops this branch, and the map, from them
			 * (the loader refuses hybrid models with function sources). */
			if (user == KERNEL) {
				if (!now)
					now = vigil_now(f);
				apply_ha(ctx, &rs->rule[i], rs->id[i], f, src, now);
			}
		} else {
			apply(ctx, &rs->rule[i], rs->id[i], f, src, user);
		}
	}
	return 0;
}

/*
 * The handlers.  Arguments of tp_btf programs are BTF-typed (trusted)
 * pointers, and vmlinux.h's types carry preserve_access_index: a direct read
 * such as prev->pid is a CO-RE relocation against the running kernel's BTF,
 * exactly as BPF_CORE_READ(prev, pid), but compiles to a plain load instead
 * of a bpf_probe_read_kernel() call (sched_switch: 330 -> 130 ns per event
 * here).  A fault on such a load reads 0.
 */
#define FIELDS __u64 f[VIGIL_MAX_FIELDS] = {}
#define RUN(tp) run_rules(ctx, VIGIL_TP_##tp, f, VIGIL_NF_##tp, KERNEL)

/* task_cpu(p), as the sched tracepoints' target_cpu. */
static __always_inline __s64 task_cpu(struct task_struct *p)
{
	if (bpf_core_field_exists(p->thread_info.cpu))
		return p->thread_info.cpu;
	return -1;
}

/*
 * prev_state as ftrace prints it (__trace_sched_switch_state) and as
 * sources::task_state_code numbers the letters: R+ (preempted) 256;
 * otherwise the highest bit of (state | exit_state) & TASK_REPORT (0x7f),
 * with TASK_IDLE (0x402) reported as I (128) and rtlock-waiting / frozen
 * tasks as D (2).
 */
static __always_inline __s64 task_state_code(bool preempt, struct task_struct *prev,
					     unsigned int prev_state)
{
	unsigned int s;

	if (preempt)
		return VIGIL_STATE_PREEMPTED;
	s = (prev_state | prev->exit_state) & 0x7f;
	if ((prev_state & 0x402) == 0x402)
		s = VIGIL_STATE_IDLE;
	if (prev_state & (0x1000 | 0x8000))
		s = 2;
	/* 1 << (fls(s) - 1) */
	if (s & 0x80)
		return 0x80;
	if (s & 0x40)
		return 0x40;
	if (s & 0x20)
		return 0x20;
	if (s & 0x10)
		return 0x10;
	if (s & 0x8)
		return 0x8;
	if (s & 0x4)
		return 0x4;
	if (s & 0x2)
		return 0x2;
	return s & 0x1;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(tp_sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	FIELDS;
	f[0] = (__s64)prev->pid;
	f[1] = task_state_code(preempt, prev, prev_state);
	f[2] = (__s64)next->pid;
	f[3] = (__s64)prev->prio;
	f[4] = (__s64)next->prio;
	f[5] = preempt;
	return RUN(sched_switch);
}

#define WAKEUP_HANDLER(tp)                                    \
	SEC("tp_btf/" #tp)                                    \
	int BPF_PROG(tp_##tp, struct task_struct *p)          \
	{                                                     \
		FIELDS;                                       \
		f[0] = (__s64)p->pid;          \
		f[1] = (__s64)p->prio;         \
		f[2] = task_cpu(p);                           \
		return RUN(tp);                               \
	}

WAKEUP_HANDLER(sched_wakeup)
WAKEUP_HANDLER(sched_wakeup_new)
WAKEUP_HANDLER(sched_waking)

SEC("tp_btf/sched_process_exit")
int BPF_PROG(tp_sched_process_exit, struct task_struct *p)
{
	FIELDS;
	f[0] = (__s64)p->pid;
	f[1] = (__s64)p->prio;
	return RUN(sched_process_exit);
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(tp_sched_process_fork, struct task_struct *parent, struct task_struct *child)
{
	FIELDS;
	f[0] = (__s64)parent->pid;
	f[1] = (__s64)child->pid;
	return RUN(sched_process_fork);
}

SEC("tp_btf/sched_entry_tp")
int BPF_PROG(tp_sched_entry_tp, bool preempt)
{
	FIELDS;
	f[0] = preempt;
	return RUN(sched_entry_tp);
}

SEC("tp_btf/sched_exit_tp")
int BPF_PROG(tp_sched_exit_tp)
{
	FIELDS;
	return RUN(sched_exit_tp);
}

SEC("tp_btf/sched_set_need_resched_tp")
int BPF_PROG(tp_sched_set_need_resched_tp, struct task_struct *tsk, int cpu, int tif)
{
	FIELDS;
	f[0] = (__s64)tsk->pid;
	f[1] = (__s64)cpu;
	f[2] = (__s64)tif;
	return RUN(sched_set_need_resched_tp);
}

SEC("tp_btf/irq_handler_entry")
int BPF_PROG(tp_irq_handler_entry, int irq)
{
	FIELDS;
	f[0] = (__s64)irq;
	return RUN(irq_handler_entry);
}

SEC("tp_btf/irq_handler_exit")
int BPF_PROG(tp_irq_handler_exit, int irq, struct irqaction *action, int ret)
{
	FIELDS;
	f[0] = (__s64)irq;
	f[1] = (__s64)ret;
	return RUN(irq_handler_exit);
}

#define FAULT_HANDLER(tp)                                                                       \
	SEC("tp_btf/" #tp)                                                                      \
	int BPF_PROG(tp_##tp, unsigned long address, struct pt_regs *regs, unsigned long error_code) \
	{                                                                                       \
		FIELDS;                                                                         \
		f[0] = address;                                                                 \
		f[1] = regs->ip;                                                 \
		f[2] = error_code;                                                              \
		return RUN(tp);                                                                 \
	}

FAULT_HANDLER(page_fault_user)
FAULT_HANDLER(page_fault_kernel)

SEC("tp_btf/signal_deliver")
int BPF_PROG(tp_signal_deliver, int sig, struct kernel_siginfo *info)
{
	FIELDS;
	f[0] = (__s64)sig;
	/* As TP_STORE_SIGINFO: SEND_SIG_NOINFO (0) is SI_USER (0), SEND_SIG_PRIV
	 * (1) is SI_KERNEL (0x80). */
	if ((unsigned long)info == 1) {
		f[2] = 0x80;
	} else if (info) {
		f[1] = (__s64)info->si_errno;
		f[2] = (__s64)info->si_code;
	}
	return RUN(signal_deliver);
}

/* The preemptirq tracepoints exist only in kernels built with
 * CONFIG_PREEMPT_TRACER / CONFIG_IRQSOFF_TRACER (not this project's test
 * machine: the loader refuses a binding that needs them there, naming
 * them, and never loads these programs).  Their arguments are the caller's
 * and its parent's instruction addresses (fields caller, parent); ftrace
 * prints them as symbol+offset, so offline traces cannot compare them as
 * numbers. */
#define PREEMPTIRQ_HANDLER(tp)                                                \
	SEC("tp_btf/" #tp)                                                    \
	int BPF_PROG(tp_##tp, unsigned long ip, unsigned long parent_ip)      \
	{                                                                     \
		FIELDS;                                                       \
		f[0] = (__s64)ip;                                             \
		f[1] = (__s64)parent_ip;                                      \
		return RUN(tp);                                               \
	}

PREEMPTIRQ_HANDLER(preempt_disable)
PREEMPTIRQ_HANDLER(preempt_enable)
PREEMPTIRQ_HANDLER(irq_disable)
PREEMPTIRQ_HANDLER(irq_enable)

/* call:FUNC (cookie = source slot), and the entry half of return:FUNC
 * (cookie = SAVE_ARGS | slot). */
SEC("uprobe")
int BPF_KPROBE(uprobe_call)
{
	__u32 cookie = (__u32)bpf_get_attach_cookie(ctx);
	FIELDS;

	f[0] = PT_REGS_PARM1(ctx);
	f[1] = PT_REGS_PARM2(ctx);
	f[2] = PT_REGS_PARM3(ctx);
	f[3] = PT_REGS_PARM4(ctx);
	f[4] = PT_REGS_PARM5(ctx);
	f[5] = PT_REGS_PARM6(ctx);
	if (cookie & SAVE_ARGS) {
		struct saved_key k = { .pid_tgid = bpf_get_current_pid_tgid(),
				       .slot = cookie & ~SAVE_ARGS };
		struct saved_args a = { { f[0], f[1], f[2], f[3], f[4], f[5] } };

		bpf_map_update_elem(&vigil_saved_args, &k, &a, BPF_ANY);
		return 0;
	}
	return run_rules(ctx, cookie, f, VIGIL_NCALL_FIELDS, USER_ENTRY);
}

/* return:FUNC: the arguments saved at entry, then the return value. */
SEC("uretprobe")
int BPF_KRETPROBE(uprobe_return)
{
	__u32 slot = (__u32)bpf_get_attach_cookie(ctx);
	struct saved_key k = { .pid_tgid = bpf_get_current_pid_tgid(), .slot = slot };
	struct saved_args *a;
	FIELDS;

	a = bpf_map_lookup_elem(&vigil_saved_args, &k);
	if (a) {
		f[0] = a->arg[0];
		f[1] = a->arg[1];
		f[2] = a->arg[2];
		f[3] = a->arg[3];
		f[4] = a->arg[4];
		f[5] = a->arg[5];
		bpf_map_delete_elem(&vigil_saved_args, &k);
	}
	f[6] = PT_REGS_RC(ctx);
	return run_rules(ctx, slot, f, VIGIL_NRETURN_FIELDS, USER_RETURN);
}

/*
 * The conformance corpus through this engine (tests/conformance, `vigil
 * conform --bpf-runner`): the loader writes one event (its source slot and
 * all its fields, common ones included) into vigil_test_event and makes a
 * system call that runs this program, so that the rule loop, the step and
 * the instance maps above run in the kernel exactly as for a tracepoint
 * hit; only where the fields come from differs.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct vigil_test_event);
} vigil_test_event SEC(".maps");

/* Attached to sys_enter and run only for the loader's thread, when it
 * has armed an event (then a getppid() runs it): a tracepoint program,
 * unlike a raw_tp one that BPF_PROG_TEST_RUN could run, may use the
 * hybrid instances' locks and timers. */
const volatile __u32 vigil_conform_tid = 0;

SEC("tp_btf/sys_enter")
int BPF_PROG(conform_event, struct pt_regs *regs, long id)
{
	__u32 zero = 0;
	struct vigil_test_event *e = bpf_map_lookup_elem(&vigil_test_event, &zero);
	FIELDS;

	if (!e || !e->armed || (__u32)bpf_get_current_pid_tgid() != vigil_conform_tid)
		return 0;
	e->armed = 0;
	vigil_test_now = e->ts;
	/* As time passes before the event: the expiries up to it first. */
	if (vigil_kind == VK_HA)
		expire_all(e->ts);
	if (e->slot == VIGIL_TEST_TICK)
		return 0;
	for (int i = 0; i < VIGIL_MAX_FIELDS; i++)
		f[i] = e->f[i];
	return run_rules(ctx, e->slot, f, -1, KERNEL);
}
