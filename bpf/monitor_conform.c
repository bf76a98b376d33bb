// SPDX-License-Identifier: MIT OR Apache-2.0
/*
 * `vigil-bpf-monitor --conform EVENTS MODEL.vk`: the conformance corpus
 * (tests/conformance) through the kernel engine, for `vigil conform
 * --bpf-runner`.  Same interface as tests/conformance/vk_run.c: EVENTS has
 * one `LINE TS SOURCE F0..F15` per event (SOURCE: the compiled model's
 * source index, -1 for time passing), and each verdict is printed as
 * `LINE VERDICT KEY FROM EVENT AT` (AT -1: at the event; else the time an
 * expired invariant was found at, before the event).
 *
 * Each event is written, armed, into the map vigil_test_event; then a
 * getppid() runs the program conform_event (attached to sys_enter, for
 * this thread only), which runs the rule loop on it: the rule loop, the
 * steps, the instance maps with their compare-and-swap or locks and the
 * ring buffer are the ones a tracepoint hit runs, in the kernel.  Only the
 * fields differ: they come from the event, common ones included.  (Not
 * BPF_PROG_TEST_RUN: the program types it runs may not use the locks and
 * timers of hybrid instances.)
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "loader_util.h"
#include "monitor_conform.h"
#include "monitor.skel.h"

#define MAX_EXPIRED 4096

/* The verdicts of one event: expiries (found by walking a hash map, so in
 * no useful order) are printed sorted by time, then key, as vk_run finds
 * them; the event's own verdicts follow in rule order. */
struct conform_ctx {
	long line;
	int nexpired;
	struct vigil_violation expired[MAX_EXPIRED];
};

static void print_one(long line, const struct vigil_violation *v)
{
	printf("%ld %u %" PRId64 " %u %u %lld\n", line, v->kind, (int64_t)v->key, v->state, v->event,
	       v->rule == VIGIL_RULE_TIMER ? (long long)v->at : -1LL);
}

static int by_time_then_key(const void *a, const void *b)
{
	const struct vigil_violation *x = a, *y = b;

	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	if ((int64_t)x->key != (int64_t)y->key)
		return (int64_t)x->key < (int64_t)y->key ? -1 : 1;
	return 0;
}

static void flush_expired(struct conform_ctx *c)
{
	qsort(c->expired, c->nexpired, sizeof(c->expired[0]), by_time_then_key);
	for (int i = 0; i < c->nexpired; i++)
		print_one(c->line, &c->expired[i]);
	c->nexpired = 0;
}

static int on_verdict(void *ctx, void *data, size_t size)
{
	struct conform_ctx *c = ctx;
	const struct vigil_violation *v = data;

	if (size < sizeof(*v))
		return 0;
	if (v->rule == VIGIL_RULE_TIMER) {
		if (c->nexpired == MAX_EXPIRED)
			lu_die("more than %d invariants expired before the event of line %ld", MAX_EXPIRED,
			       c->line);
		c->expired[c->nexpired++] = *v;
		return 0;
	}
	flush_expired(c);
	print_one(c->line, v);
	return 0;
}

/* The slot of the model's source `source`: the slot of its rules. */
static int slot_of(const struct monitor_model *m, long source)
{
	for (int i = 0; i < m->nrules; i++)
		if (m->rules[i].vk->source == source)
			return m->rules[i].slot;
	return -1;
}

static void run_one(struct monitor_bpf *skel, struct ring_buffer *rb, const struct vigil_test_event *e)
{
	struct vigil_test_event armed = *e, after;
	__u32 zero = 0;

	armed.armed = 1;
	if (bpf_map__update_elem(skel->maps.vigil_test_event, &zero, sizeof(zero), &armed, sizeof(armed), BPF_ANY))
		lu_die("cannot write the test event: %s", strerror(errno));
	syscall(SYS_getppid);
	if (bpf_map__lookup_elem(skel->maps.vigil_test_event, &zero, sizeof(zero), &after, sizeof(after), 0) ||
	    after.armed)
		lu_die("the conformance program did not run (sys_enter not attached?)");
	if (ring_buffer__consume(rb) < 0)
		lu_die("cannot read the ring buffer: %s", strerror(errno));
}

int conform_run(struct monitor_bpf *skel, const struct monitor_model *m, const char *events)
{
	static struct conform_ctx c;
	struct ring_buffer *rb;
	FILE *in = fopen(events, "r");
	unsigned long long ts;
	long source;

	if (!in)
		lu_die("cannot read %s: %s", events, strerror(errno));
	rb = ring_buffer__new(bpf_map__fd(skel->maps.vigil_violations), on_verdict, &c, NULL);
	if (!rb)
		lu_die("cannot open the ring buffer: %s", strerror(errno));
	while (fscanf(in, "%ld %llu %ld", &c.line, &ts, &source) == 3) {
		struct vigil_test_event e = { 0 };

		for (int i = 0; i < VIGIL_MAX_FIELDS; i++)
			if (fscanf(in, "%" SCNd64, (int64_t *)&e.f[i]) != 1)
				lu_die("%s: event of line %ld has fewer than %d fields", events, c.line,
				       VIGIL_MAX_FIELDS);
		e.ts = ts;
		e.slot = source < 0 ? VIGIL_TEST_TICK : (__u32)slot_of(m, source);
		/* A source no rule reads, or time passing for a model with no clock. */
		if ((int)e.slot == -1 && source >= 0)
			continue;
		if (source < 0 && m->vk.h->kind != VK_HA)
			continue;
		run_one(skel, rb, &e);
		flush_expired(&c);
	}
	if (!feof(in))
		lu_die("%s: unreadable event after line %ld", events, c.line);
	fclose(in);
	ring_buffer__free(rb);
	fflush(stdout);
	return 0;
}
