/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * Types shared by vigil record's BPF program (record.bpf.c) and its loader
 * (record.c): the ring-buffer record and the attach cookie.  docs/record.md
 * describes the whole path.
 */
#ifndef VIGIL_BPF_RECORD_H
#define VIGIL_BPF_RECORD_H

#ifndef __VMLINUX_H__ /* the loader; the BPF side has vmlinux.h */
#include <linux/types.h>
#endif

/* Argument words of a uprobe record: PT_REGS_PARM1..6. */
#define VIGIL_REC_UARGS 6
/* Bytes of a tracepoint's raw record copied at most (common fields
 * included); fields beyond are not recorded. */
#define VIGIL_REC_TP_BYTES 256

/* The cookie of every attachment: which probe of the loader's table fired
 * (low 32 bits) and, for tracepoints, how many bytes of the raw record to
 * copy (bits 32-47). */
#define VIGIL_COOKIE_PROBE(c) ((__u32)(c))
#define VIGIL_COOKIE_BYTES(c) ((__u32)((c) >> 32) & 0xffff)
#define VIGIL_COOKIE(probe, bytes) ((__u64)(probe) | (__u64)(bytes) << 32)

/* The idle tasks are all pid 0, one per cpu, running at once: each gets a
 * thread id of its own, -1 - cpu in the stream (as a signed 32-bit key). */
#define VIGIL_REC_IDLE_TID(cpu) (0xffffffffu - (__u32)(cpu))
#define VIGIL_REC_STREAM_TID(key) ((__s64)(__s32)(key))

/* Every ring-buffer record starts with this; the payload follows: the
 * argument words of a uprobe (6), the return value of a uretprobe (1), the
 * first VIGIL_COOKIE_BYTES bytes of a tracepoint's raw record. */
struct vigil_rec {
	__u32 tid;   /* kernel thread id (VIGIL_REC_STREAM_TID): the batch's thread */
	__u32 probe; /* the loader's probe index (the cookie) */
	__u64 seq;   /* the thread's sequence number (lost events take one too) */
	__u64 ts;    /* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
};

/* Per thread (map `threads`): the next sequence number and the events lost
 * so far.  `busy` is non-zero while one of our programs runs for this
 * thread: an event of the same thread that interrupts it (a tracepoint in
 * an interrupt) is counted lost rather than overtaking it in the ring
 * buffer, so each thread's records arrive in sequence order. */
struct vigil_thread {
	__u64 seq;
	__u64 lost;
	__u32 busy;
	__u32 pad;
};

/* Indexes of the `counters` map. */
enum vigil_rec_counter {
	VIGIL_REC_UNTRACKED = 0, /* events of threads the `threads` map had no room for */
	VIGIL_REC_NR_COUNTERS
};

#endif /* VIGIL_BPF_RECORD_H */
