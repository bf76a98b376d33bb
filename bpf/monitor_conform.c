// SPDX-License-Identifier: MIT OR Apache-2.0
/*
 * `vigil-bpf-monitor --conform EVENTS MODEL.vk`: the conformance corpus
 * (tests/conformance) through the kernel engine, for `vigil conform
 * --bpf-runner`.  Same interface as tests/conformance/vk_run.c: EVENTS has
 * one `LINE TS SOURCE F0..F15` per event (SOURCE: the compiled model's
 * source index, -1 for time passing), and each verdict is printed as
 * `LINE VERDICT KEY FROM EVENT -1`.
 *
 * Each event is written into the map vigil_test_event and the never
 * attached program conform_event runs it with BPF_PROG_TEST_RUN: the rule
 * loop, vk_step_word, the instance maps with their compare-and-swap and the
 * ring buffer are the ones a tracepoint hit runs, in the kernel.  Only the
 * fields differ: they come from the event, common ones included.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "loader_util.h"
#include "monitor_conform.h"
#include "monitor.skel.h"

struct conform_ctx {
	long line;
	unsigned long lost;
};

static int print_verdict(void *ctx, void *data, size_t size)
{
	const struct conform_ctx *c = ctx;
	const struct vigil_violation *v = data;

	if (size < sizeof(*v))
		return 0;
	printf("%ld %u %" PRId64 " %u %u -1\n", c->line, v->kind, (int64_t)v->key, v->state, v->event);
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
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	__u32 zero = 0;

	if (bpf_map__update_elem(skel->maps.vigil_test_event, &zero, sizeof(zero), e, sizeof(*e), BPF_ANY))
		lu_die("cannot write the test event: %s", strerror(errno));
	if (bpf_prog_test_run_opts(bpf_program__fd(skel->progs.conform_event), &opts))
		lu_die("BPF_PROG_TEST_RUN failed: %s", strerror(errno));
	if (ring_buffer__consume(rb) < 0)
		lu_die("cannot read the ring buffer: %s", strerror(errno));
}

int conform_run(struct monitor_bpf *skel, const struct monitor_model *m, const char *events)
{
	struct conform_ctx c = { 0 };
	struct ring_buffer *rb;
	FILE *in = fopen(events, "r");
	unsigned long long ts;
	long source;

	if (!in)
		lu_die("cannot read %s: %s", events, strerror(errno));
	rb = ring_buffer__new(bpf_map__fd(skel->maps.vigil_violations), print_verdict, &c, NULL);
	if (!rb)
		lu_die("cannot open the ring buffer: %s", strerror(errno));
	while (fscanf(in, "%ld %llu %ld", &c.line, &ts, &source) == 3) {
		struct vigil_test_event e = { 0 };

		for (int i = 0; i < VIGIL_MAX_FIELDS; i++)
			if (fscanf(in, "%" SCNd64, (int64_t *)&e.f[i]) != 1)
				lu_die("%s: event of line %ld has fewer than %d fields", events, c.line,
				       VIGIL_MAX_FIELDS);
		/* Time passing: plain automata have no clock. */
		if (source < 0)
			continue;
		e.slot = slot_of(m, source);
		if ((int)e.slot < 0)
			continue;
		run_one(skel, rb, &e);
	}
	if (!feof(in))
		lu_die("%s: unreadable event after line %ld", events, c.line);
	fclose(in);
	ring_buffer__free(rb);
	fflush(stdout);
	return 0;
}
