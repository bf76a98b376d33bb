// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * vigil record's BPF program: uprobe, uretprobe and tracepoint events into
 * one ring buffer, each with its thread's sequence number (docs/record.md).
 *
 * Three generic programs, each attached many times by the loader
 * (bpf/record.c) with a BPF cookie naming the probe: uprobe_entry copies the
 * six argument registers, uprobe_return the return value, tracepoint_record
 * the first bytes of the tracepoint's raw record (the loader decodes the
 * fields from the tracepoint's format file).  Nothing is decoded here: the
 * kernel side stays small and the same for every probe.
 *
 * Every event takes a per-thread sequence number, recorded or not: when the
 * ring buffer is full the event is counted in the thread's `lost`, so a gap
 * in a thread's sequence numbers is exactly its lost events
 * (docs/stream-format.md).
 *
 * The license is GPL-compatible because tp_btf programs need it.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "record.h"

/* libbpf 1.1 has no PT_REGS_PARM6 (as in monitor.bpf.c). */
#ifndef PT_REGS_PARM6
#if defined(bpf_target_x86)
#define PT_REGS_PARM6(x) (__PT_REGS_CAST(x)->r9)
#elif defined(bpf_target_arm64)
#define PT_REGS_PARM6(x) (__PT_REGS_CAST(x)->regs[5])
#else
#error "vigil record: the sixth argument register of this architecture is not known"
#endif
#endif

char LICENSE[] SEC("license") = "Dual MIT/GPL";

/* Set by the loader before loading. */
const volatile __u32 system_wide = 0;     /* tracepoints: every process, not `traced` only */
const volatile __u64 wakeup_bytes = 1 << 20; /* wake the loader past this much unread data */

/* Sized by the loader (--ring-size). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20);
} events SEC(".maps");

/* tid -> sequence number and lost count.  A plain hash, not LRU: an evicted
 * thread would lose its totals; a full map is counted (VIGIL_REC_UNTRACKED).
 * Not preallocated: the limit is high (a recorded `make` starts a process
 * per compiler run) and memory is taken per thread seen. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1 << 20);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct vigil_thread);
} threads SEC(".maps");

/* tgid -> 1: the processes whose tracepoint events are recorded (the
 * command, then its descendants through sched_process_fork). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1 << 20);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, __u8);
} traced SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, VIGIL_REC_NR_COUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

/* The thread's id; the idle tasks, all pid 0, are told apart by cpu (they
 * run at once on every cpu): VIGIL_REC_IDLE_TID(cpu). */
static __always_inline __u32 current_tid(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();

	return tid ? tid : VIGIL_REC_IDLE_TID(bpf_get_smp_processor_id());
}

static __always_inline void count(__u32 which)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &which);

	if (c)
		(*c)++;
}

static __always_inline struct vigil_thread *thread_of(__u32 tid)
{
	struct vigil_thread *t = bpf_map_lookup_elem(&threads, &tid);
	struct vigil_thread zero = {};

	if (t)
		return t;
	bpf_map_update_elem(&threads, &tid, &zero, BPF_NOEXIST);
	t = bpf_map_lookup_elem(&threads, &tid);
	if (!t)
		count(VIGIL_REC_UNTRACKED);
	return t;
}

/* Takes the thread's next sequence number.  Null when the event is not to
 * be written: the thread is already inside one of our programs (then the
 * event is counted lost, see struct vigil_thread) or untracked. */
static __always_inline struct vigil_thread *enter(__u32 tid, __u64 *seq)
{
	struct vigil_thread *t = thread_of(tid);

	if (!t)
		return NULL;
	if (__sync_fetch_and_add(&t->busy, 1)) {
		__sync_fetch_and_add(&t->seq, 1);
		__sync_fetch_and_add(&t->lost, 1);
		__sync_fetch_and_sub(&t->busy, 1);
		return NULL;
	}
	*seq = __sync_fetch_and_add(&t->seq, 1);
	return t;
}

static __always_inline void leave(struct vigil_thread *t, bool written)
{
	if (!written)
		__sync_fetch_and_add(&t->lost, 1);
	__sync_fetch_and_sub(&t->busy, 1);
}

/* The loader is woken only once a good part of the ring buffer is filled;
 * otherwise it reads at its flush interval.  A wake-up per event would cost
 * the traced program a cross-cpu interrupt and the loader a context switch
 * per event. */
static __always_inline __u64 wakeup_flag(void)
{
	return bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wakeup_bytes ? BPF_RB_FORCE_WAKEUP
									     : BPF_RB_NO_WAKEUP;
}

static __always_inline void fill(struct vigil_rec *h, __u32 tid, __u64 cookie, __u64 seq)
{
	h->tid = tid;
	h->probe = VIGIL_COOKIE_PROBE(cookie);
	h->seq = seq;
	h->ts = bpf_ktime_get_ns();
}

struct uargs_rec {
	struct vigil_rec h;
	__u64 a[VIGIL_REC_UARGS];
};

struct uret_rec {
	struct vigil_rec h;
	__u64 ret;
};

SEC("uprobe")
int BPF_KPROBE(uprobe_entry)
{
	__u64 cookie = bpf_get_attach_cookie(ctx), seq;
	__u32 tid = current_tid();
	struct vigil_thread *t = enter(tid, &seq);
	struct uargs_rec *r;

	if (!t)
		return 0;
	r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
	if (r) {
		r->a[0] = PT_REGS_PARM1(ctx);
		r->a[1] = PT_REGS_PARM2(ctx);
		r->a[2] = PT_REGS_PARM3(ctx);
		r->a[3] = PT_REGS_PARM4(ctx);
		r->a[4] = PT_REGS_PARM5(ctx);
		r->a[5] = PT_REGS_PARM6(ctx);
		fill(&r->h, tid, cookie, seq);
		bpf_ringbuf_submit(r, wakeup_flag());
	}
	leave(t, r != NULL);
	return 0;
}

SEC("uretprobe")
int BPF_KRETPROBE(uprobe_return)
{
	__u64 cookie = bpf_get_attach_cookie(ctx), seq;
	__u32 tid = current_tid();
	struct vigil_thread *t = enter(tid, &seq);
	struct uret_rec *r;

	if (!t)
		return 0;
	r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
	if (r) {
		r->ret = PT_REGS_RC(ctx);
		fill(&r->h, tid, cookie, seq);
		bpf_ringbuf_submit(r, wakeup_flag());
	}
	leave(t, r != NULL);
	return 0;
}

/* A tracepoint's raw record, in a ring-buffer record of N bytes of payload
 * (bpf_ringbuf_reserve needs a constant size: four size classes keep small
 * records small). */
#define TP_RECORD(N)                                                                   \
	do {                                                                           \
		struct {                                                               \
			struct vigil_rec h;                                            \
			__u8 d[N];                                                     \
		} *r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);                    \
		__u32 n = bytes;                                                       \
                                                                                       \
		if (r) {                                                               \
			if (n > N)                                                     \
				n = N;                                                 \
			bpf_probe_read_kernel(r->d, n, ctx);                           \
			fill(&r->h, tid, cookie, seq);                                 \
			bpf_ringbuf_submit(r, wakeup_flag());                          \
		}                                                                      \
		written = r != NULL;                                                   \
	} while (0)

SEC("tracepoint")
int tracepoint_record(void *ctx)
{
	__u64 cookie = bpf_get_attach_cookie(ctx), seq;
	__u32 tgid = bpf_get_current_pid_tgid() >> 32, bytes = VIGIL_COOKIE_BYTES(cookie), tid;
	struct vigil_thread *t;
	bool written;

	if (!system_wide && !bpf_map_lookup_elem(&traced, &tgid))
		return 0;
	tid = current_tid();
	t = enter(tid, &seq);
	if (!t)
		return 0;
	if (bytes <= 32)
		TP_RECORD(32);
	else if (bytes <= 64)
		TP_RECORD(64);
	else if (bytes <= 128)
		TP_RECORD(128);
	else
		TP_RECORD(VIGIL_REC_TP_BYTES);
	leave(t, written);
	return 0;
}

/* Descendants of the command: a new process (not a thread) forked by a
 * traced one is traced too.  A tgid stays in `traced` until the end. */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(follow_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	__u8 one = 1;

	if (ptgid != ctgid && bpf_map_lookup_elem(&traced, &ptgid))
		bpf_map_update_elem(&traced, &ctgid, &one, BPF_ANY);
	return 0;
}
