/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * The event sources of vigil's eBPF monitor and their fields.
 *
 * This mirrors cli/model/src/sources.rs (TRACEPOINTS, CALL_FIELDS,
 * RETURN_FIELDS, COMMON): same tracepoints, same order, same field names in
 * the same order.  The BPF program fills a source's fields in this order,
 * then the common fields; the loader resolves the field names of a compiled
 * monitor spec against these lists.  A cargo test
 * (cli/vigil/src/monitor_cmd.rs, `fields_h_mirrors_the_catalogue`) parses this
 * file and compares it with the Rust catalogue: change both together.
 *
 * Included by monitor.bpf.c (indices only) and by monitor.c (with
 * VIGIL_FIELDS_TABLE defined: the name tables too).
 */
#ifndef VIGIL_BPF_FIELDS_H
#define VIGIL_BPF_FIELDS_H

/* Fields every event has, after its own: the current thread id (ftrace's
 * common_pid), its process id and the cpu. */
#define VIGIL_COMMON_FIELDS "common_pid", "tgid", "cpu"
#define VIGIL_NCOMMON 3

/*
 * The tracepoint catalogue: X(index, system, name, nfields, field names...).
 * `system` is "" for bare tracepoints that have no trace event.
 */
#define VIGIL_TRACEPOINTS(X)                                                              \
	X(0, "sched", sched_switch, 6, "prev_pid", "prev_state", "next_pid", "prev_prio",   \
	  "next_prio", "preempt")                                                           \
	X(1, "sched", sched_wakeup, 3, "pid", "prio", "target_cpu")                         \
	X(2, "sched", sched_wakeup_new, 3, "pid", "prio", "target_cpu")                     \
	X(3, "sched", sched_waking, 3, "pid", "prio", "target_cpu")                         \
	X(4, "sched", sched_process_exit, 2, "pid", "prio")                                 \
	X(5, "sched", sched_process_fork, 2, "parent_pid", "child_pid")                     \
	X(6, "", sched_entry_tp, 1, "preempt")                                              \
	X(7, "", sched_exit_tp, 0)                                                          \
	X(8, "", sched_set_need_resched_tp, 3, "pid", "target_cpu", "tif")                 \
	X(9, "irq", irq_handler_entry, 1, "irq")                                            \
	X(10, "irq", irq_handler_exit, 2, "irq", "ret")                                     \
	X(11, "exceptions", page_fault_user, 3, "address", "ip", "error_code")              \
	X(12, "exceptions", page_fault_kernel, 3, "address", "ip", "error_code")            \
	X(13, "signal", signal_deliver, 3, "sig", "errno", "code")                           \
	X(14, "preemptirq", preempt_disable, 2, "caller", "parent")                  \
	X(15, "preemptirq", preempt_enable, 2, "caller", "parent")                   \
	X(16, "preemptirq", irq_disable, 2, "caller", "parent")                      \
	X(17, "preemptirq", irq_enable, 2, "caller", "parent")

#define VIGIL_NR_TRACEPOINTS 18

/* Function sources (uprobes): call:FUNC has the first six integer/pointer
 * arguments; return:FUNC has them too (saved at entry), then the return
 * value. */
#define VIGIL_CALL_FIELDS "arg0", "arg1", "arg2", "arg3", "arg4", "arg5"
#define VIGIL_NCALL_FIELDS 6
#define VIGIL_RETURN_FIELDS "arg0", "arg1", "arg2", "arg3", "arg4", "arg5", "ret"
#define VIGIL_NRETURN_FIELDS 7

/* Source slots: tracepoints first (catalogue index), then one slot per
 * uprobe / uretprobe attachment; the slot is the uprobe's BPF cookie. */
#define VIGIL_MAX_UPROBES 32
#define VIGIL_NR_SOURCES (VIGIL_NR_TRACEPOINTS + VIGIL_MAX_UPROBES)

/* Largest field count of any source, common fields included. */
#define VIGIL_MAX_FIELDS 16

#define VIGIL_TP_ENUM(idx, sys, name, n, ...) VIGIL_TP_##name = idx, VIGIL_NF_##name = n,
enum { VIGIL_TRACEPOINTS(VIGIL_TP_ENUM) };
#undef VIGIL_TP_ENUM

/* task_state_code (sources.rs): ftrace's prev_state letters as numbers.
 * R 0, S 1, D 2, T 4, t 8, X 16, Z 32, P 64, I 128, R+ 256. */
#define VIGIL_STATE_PREEMPTED 256
#define VIGIL_STATE_IDLE 128

#ifdef VIGIL_FIELDS_TABLE
struct vigil_tp_desc {
	const char *system;
	const char *name;
	int nfields; /* own fields; the common ones follow */
	const char *fields[VIGIL_MAX_FIELDS];
};

#define VIGIL_TP_DESC(idx, sys, nm, n, ...) [idx] = { sys, #nm, n, { __VA_ARGS__ } },
static const struct vigil_tp_desc vigil_tracepoints[VIGIL_NR_TRACEPOINTS] = {
	VIGIL_TRACEPOINTS(VIGIL_TP_DESC)
};
#undef VIGIL_TP_DESC

static const char *const vigil_common_fields[VIGIL_NCOMMON] = { VIGIL_COMMON_FIELDS };
static const char *const vigil_call_fields[VIGIL_NCALL_FIELDS] = { VIGIL_CALL_FIELDS };
static const char *const vigil_return_fields[VIGIL_NRETURN_FIELDS] = { VIGIL_RETURN_FIELDS };
#endif

#endif
