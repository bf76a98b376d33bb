// SPDX-License-Identifier: MIT OR Apache-2.0
/*
 * record_stream.c: the consumer side of vigil record.  Ring-buffer records
 * (struct vigil_rec) are grouped by thread into pending batches of packed
 * records (include/vigil/stream.h) and shipped through libvigil's own
 * stream writer and link (runtime/stream_writer.c, stream_link.c): the
 * documents are byte for byte what a `vigil-cc --vigil-trace` program sends.
 *
 * A batch holds records of consecutive sequence numbers; a gap (events the
 * BPF side could not put in the ring buffer) starts a new batch, whose
 * `lost` is then the number of sequence numbers missing before it.  Only the
 * main loop's thread calls in here and into vg_link_* / vg_stream_*.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <linux/types.h>

#include "loader_util.h"
#include "record.h"
#include "record_loader.h"
#include "stream.h" /* runtime/stream.h: the writer, schema and link */

/* A thread's batch is shipped once it holds this much (as the traced
 * program's chunks, VIGIL_STREAM_BUFFER's default). */
#define BATCH_WORDS (64 * 1024 / 8)

struct thread {
	int64_t tid;
	uint64_t next;    /* sequence number expected next */
	uint64_t shipped; /* records shipped */
	uint64_t first;   /* sequence number of the pending batch's first record */
	uint32_t n;       /* records pending */
	size_t nwords, cap;
	uint64_t *words;  /* grows up to BATCH_WORDS: most threads of a system-wide
			   * recording have a few events only */
};

static struct thread **threads; /* every thread seen, in order of appearance */
static size_t nthreads, capthreads;
static uint32_t *table; /* open addressing: index + 1 into `threads`, 0 = empty */
static size_t tablesz;
static unsigned batches_since_mark;
static bool warned_malformed;

static size_t slot_of(int64_t tid)
{
	return ((uint64_t)tid * 0x9e3779b97f4a7c15ull >> 17) & (tablesz - 1);
}

static void grow_table(void)
{
	tablesz = tablesz ? 2 * tablesz : 1024;
	free(table);
	table = lu_xcalloc(tablesz, sizeof(*table));
	for (size_t i = 0; i < nthreads; i++) {
		size_t s = slot_of(threads[i]->tid);

		while (table[s])
			s = (s + 1) & (tablesz - 1);
		table[s] = (uint32_t)i + 1;
	}
}

static struct thread *thread_get(int64_t tid, bool create)
{
	size_t s;
	struct thread *t;

	if (2 * (nthreads + 1) > tablesz)
		grow_table();
	for (s = slot_of(tid); table[s]; s = (s + 1) & (tablesz - 1))
		if (threads[table[s] - 1]->tid == tid)
			return threads[table[s] - 1];
	if (!create)
		return NULL;
	if (nthreads == capthreads) {
		capthreads = capthreads ? 2 * capthreads : 64;
		threads = lu_xrealloc(threads, capthreads * sizeof(*threads));
	}
	t = lu_xcalloc(1, sizeof(*t));
	t->tid = tid;
	threads[nthreads++] = t;
	table[s] = (uint32_t)nthreads;
	return t;
}

static void ship(struct thread *t)
{
	uint64_t now = vg_stream_now_ns();
	/* BPF timestamps are CLOCK_MONOTONIC nanoseconds: one tick is 1 ns. */
	struct vg_clock clock = { .tsc = now, .ns = now, .ns_per_tick = 1.0 };

	if (!t->n)
		return;
	vg_stream_ship(t->tid, t->first, t->first - t->shipped, t->n, &clock, t->words, t->nwords);
	t->shipped += t->n;
	t->n = 0;
	t->nwords = 0;
	batches_since_mark++;
}

/* A field of a tracepoint's raw record as one argument word. */
static uint64_t field_word(const uint8_t *raw, const struct tp_field *f)
{
	uint64_t u = 0;

	memcpy(&u, raw + f->offset, f->size); /* little-endian: the low bytes */
	if (f->type == T_I64 && f->size < 8 && (u >> (8 * f->size - 1)) & 1)
		u |= ~0ull << (8 * f->size);
	return u;
}

static bool malformed(const char *why, size_t size)
{
	if (!warned_malformed)
		lu_warn("internal error: a ring-buffer record of %zu bytes is %s; such records are "
			"dropped (said once)",
			size, why);
	warned_malformed = true;
	return false;
}

/* Appends one record to its thread's batch; false if malformed. */
static bool append(const struct vigil_rec *h, const void *payload, size_t plen)
{
	const struct probe *p = &probes[h->probe];
	struct thread *t = thread_get(VIGIL_REC_STREAM_TID(h->tid), true);
	uint64_t *w;

	if (t->n && h->seq != t->next)
		ship(t); /* a gap: the next batch says how many were lost */
	if (h->seq < t->next)
		return malformed("out of sequence", plen);
	if (t->nwords + 2 + p->nargs > BATCH_WORDS)
		ship(t);
	if (t->nwords + 2 + p->nargs > t->cap) {
		t->cap = t->cap ? 2 * t->cap : 256;
		t->words = lu_xrealloc(t->words, t->cap * sizeof(uint64_t));
	}
	if (!t->n)
		t->first = h->seq;
	w = t->words + t->nwords;
	w[0] = p->id | (uint64_t)p->nargs << 32;
	w[1] = h->ts;
	if (p->kind == P_TRACEPOINT)
		for (int f = 0; f < p->nfields; f++)
			w[2 + f] = field_word(payload, &p->fields[f]);
	else
		memcpy(w + 2, payload, 8 * p->nargs);
	t->nwords += 2 + p->nargs;
	t->n++;
	t->next = h->seq + 1;
	if (t->nwords + 2 + VIGIL_STREAM_MAX_ARGS > BATCH_WORDS)
		ship(t);
	return true;
}

int stream_on_record(void *ctx, void *data, size_t size)
{
	const struct vigil_rec *h = data;
	size_t plen = size - sizeof(*h), need;

	if (size < sizeof(*h) || h->probe >= (uint32_t)nprobes)
		return malformed("not a vigil record", size), 0;
	need = probes[h->probe].kind == P_TRACEPOINT ? probes[h->probe].bytes : 8 * probes[h->probe].nargs;
	if (plen < need)
		return malformed("too short for its probe", size), 0;
	append(h, h + 1, plen);
	return 0;
}

void stream_open(const char *dest)
{
	const char *mode = getenv("VIGIL_STREAM_MODE");

	vg_stream_read_environment();
	if (mode && !strcmp(mode, "lossless"))
		lu_warn("VIGIL_STREAM_MODE=lossless ignored: kernel probes cannot wait for the "
			"collector, vigil record streams in discard mode (every lost event counted)");
	vg_stream_config.mode = VG_DISCARD;
	vg_stream_config.dest = dest;
	if (vg_link_open(dest) != 0)
		lu_die("cannot open the stream destination %s", dest);
}

void stream_start(const char *program, int pid)
{
	char host[64] = "";

	gethostname(host, sizeof(host) - 1);
	snprintf(vg_stream_id, sizeof(vg_stream_id), "%.60s:%d:%llu", host, pid,
		 (unsigned long long)vg_stream_now_ns());
	vg_stream_identity(program, pid);
	probes_declare();
	vg_link_announce(vg_stream_event_count());
}

unsigned stream_flush_ms(void)
{
	return vg_stream_config.flush_ms;
}

void stream_flush(uint64_t drained_ns)
{
	for (size_t i = 0; i < nthreads; i++)
		ship(threads[i]);
	/* An idle stream sends no marks (as the in-process consumer). */
	if (batches_since_mark)
		vg_stream_send_mark(drained_ns);
	batches_since_mark = 0;
}

/* Per-thread totals from the BPF side: produced = sequence numbers taken.
 * `lost` is what the stream itself shows (produced - shipped); a different
 * count on the BPF side would be a bug here, said as such. */
static struct vg_thread_total *totals(int threads_fd, size_t *n)
{
	struct vg_thread_total *tot = NULL;
	size_t cnt = 0, capt = 0;
	__u32 key, next;
	void *prev = NULL;

	while (bpf_map_get_next_key(threads_fd, prev, &next) == 0) {
		struct vigil_thread v;
		struct thread *t;
		uint64_t shipped;

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(threads_fd, &key, &v) != 0)
			continue;
		t = thread_get(VIGIL_REC_STREAM_TID(key), false);
		shipped = t ? t->shipped : 0;
		if (shipped + v.lost != v.seq)
			lu_warn("internal error: thread %lld: %llu events produced, %llu shipped, %llu lost "
				"in the kernel",
				(long long)VIGIL_REC_STREAM_TID(key), (unsigned long long)v.seq, (unsigned long long)shipped,
				(unsigned long long)v.lost);
		if (cnt == capt) {
			capt = capt ? 2 * capt : 64;
			tot = lu_xrealloc(tot, capt * sizeof(*tot));
		}
		tot[cnt++] = (struct vg_thread_total){
			.tid = VIGIL_REC_STREAM_TID(key), .produced = v.seq, .lost = v.seq - shipped
		};
	}
	*n = cnt;
	return tot;
}

void stream_finish(int threads_fd)
{
	size_t n;
	struct vg_thread_total *tot;
	uint64_t deadline;

	stream_flush(vg_stream_now_ns());
	tot = totals(threads_fd, &n);
	vg_stream_send_end(tot, n);
	free(tot);
	deadline = vg_stream_now_ms() + vg_stream_config.linger_ms;
	while (!vg_link_idle() && vg_stream_now_ms() < deadline)
		vg_link_poll((int)(deadline - vg_stream_now_ms() < 100 ? deadline - vg_stream_now_ms() : 100), -1);
	vg_link_close(1);
}
