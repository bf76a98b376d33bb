/*
 * vk_run — the conformance corpus through vk.h, the C step function the
 * in-process and BPF engines share.  `vigil conform --c-runner` calls it:
 *
 *   vk_run MODEL.blob EVENTS
 *
 * MODEL.blob is Compiled::to_blob(); EVENTS has one `LINE TS SOURCE F0..F15`
 * per event (SOURCE -1: time passes).  For each verdict it prints
 * `LINE VERDICT KEY FROM EVENT AT` (EVENT 65535: none; AT -1: at the event;
 * FROM of an LTL verdict: the set of states, a bit each), which vigil
 * conform names and compares with the other engines.
 * Instances live in a plain array scanned in key order, and expiries are
 * found by scanning it: the simplest storage, so that any disagreement is
 * the step function's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vigil/vk.h"

#define MAX_INST 65536

static struct {
	int64_t key;
	struct vk_inst in;
} inst[MAX_INST];
static size_t ninst;

static struct vk_inst *find(int64_t key, int create)
{
	for (size_t i = 0; i < ninst; i++)
		if (inst[i].key == key)
			return &inst[i].in;
	if (!create)
		return NULL;
	if (ninst == MAX_INST) {
		fprintf(stderr, "vk_run: more than %d instances\n", MAX_INST);
		exit(2);
	}
	inst[ninst].key = key;
	inst[ninst].in = (struct vk_inst){ .word = 0, .reset_ns = { VK_NEVER, VK_NEVER }, .expiry_ns = VK_NEVER };
	return &inst[ninst++].in;
}

/* As the reference's store: an instance is kept while it is monitored or,
 * LTL, while an atom of it has a value (the start waits for all). */
static void drop_unmonitored(void)
{
	size_t j = 0;
	for (size_t i = 0; i < ninst; i++)
		if (inst[i].in.word || inst[i].in.known)
			inst[j++] = inst[i];
	ninst = j;
}

static void print(long line, struct vk_result v, int64_t key, unsigned event, long long at)
{
	unsigned long from = v.verdict == VK_V_LTL ? v.states : v.from;
	printf("%ld %u %" PRId64 " %lu %u %lld\n", line, v.verdict, key, from, event, at);
}

/* Expiries at or before ts, earliest (then smallest key) first. */
static void expire_until(const struct vk_model *m, long line, uint64_t ts)
{
	for (;;) {
		size_t best = ninst;
		for (size_t i = 0; i < ninst; i++) {
			if (inst[i].in.expiry_ns > ts)
				continue;
			if (best == ninst || inst[i].in.expiry_ns < inst[best].in.expiry_ns ||
			    (inst[i].in.expiry_ns == inst[best].in.expiry_ns && inst[i].key < inst[best].key))
				best = i;
		}
		if (best == ninst)
			return;
		uint64_t at = inst[best].in.expiry_ns;
		struct vk_result v = vk_expire(m, &inst[best].in, at);
		print(line, v, inst[best].key, VK_NONE, (long long)at);
		drop_unmonitored();
	}
}

static void *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	void *buf = aligned_alloc(8, (size_t)(n + 8) & ~(size_t)7);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		return NULL;
	}
	fclose(f);
	*size = (size_t)n;
	return buf;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: vk_run MODEL.blob EVENTS\n");
		return 2;
	}
	size_t size;
	void *blob = read_file(argv[1], &size);
	if (!blob) {
		perror(argv[1]);
		return 2;
	}
	struct vk_model m;
	const char *err = vk_model_open(&m, blob, size);
	if (err) {
		fprintf(stderr, "vk_run: %s: %s\n", argv[1], err);
		return 2;
	}
	FILE *ev = fopen(argv[2], "r");
	if (!ev) {
		perror(argv[2]);
		return 2;
	}
	long line;
	unsigned long long ts;
	long source;
	while (fscanf(ev, "%ld %llu %ld", &line, &ts, &source) == 3) {
		vk_s64 f[VK_MAX_FIELDS];
		for (int i = 0; i < VK_MAX_FIELDS; i++)
			if (fscanf(ev, "%" SCNd64, &f[i]) != 1) {
				fprintf(stderr, "vk_run: %s: event of line %ld has fewer than 16 fields\n", argv[2], line);
				return 2;
			}
		expire_until(&m, line, ts);
		for (vk_u16 r = 0; source >= 0 && r < m.h->nrules; r++) {
			const struct vk_rule *rule = &m.rules[r];
			if (rule->source != source || !vk_rule_holds(&m, rule, f))
				continue;
			int64_t key = vk_key_of(rule, f);
			struct vk_result v = vk_decide(&m, rule, find(key, 1), f, ts);
			if (v.verdict != VK_OK)
				print(line, v, key, rule->event, -1);
			drop_unmonitored();
		}
	}
	fclose(ev);
	return 0;
}
