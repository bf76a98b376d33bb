/*
 * vk_fuzz.c — libFuzzer target for include/vigil/vk.h: vk_model_open() on
 * arbitrary bytes (the BPF loader and the in-process runtime map blobs),
 * then, when it accepts them, steps of every rule with field values and
 * times drawn from the input: from the bytes past the blob's size when
 * there are some (so that the steps vary without breaking the blob), else
 * from the blob itself.  vk_model_open promises that no step reads
 * outside an accepted blob; ASan holds it to that.  An LTL instance must
 * also stay within its automaton: its state set and a verdict's name only
 * states the automaton has.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vigil/vk.h"

static void check_ltl(const struct vk_model *m, const struct vk_inst *in, struct vk_result v)
{
	if (m->h->kind != VK_LTL)
		return;
	vk_u32 all = m->ltl->nstates >= 32 ? 0xffffffffu : (1u << m->ltl->nstates) - 1;
	if ((in->word & ~all) || (v.verdict != VK_OK && v.verdict != VK_V_LTL) || (v.states & ~all) ||
	    in->expiry_ns != VK_NEVER)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* An exact-size, 8-aligned copy: reads past the end are caught. */
	uint64_t *blob = malloc(size ? size : 1);
	if (!blob)
		return 0;
	memcpy(blob, data, size);
	struct vk_model m;
	if (vk_model_open(&m, blob, size) == 0) {
		const char **names = malloc(vk_nnames(&m) * sizeof *names);
		if (names)
			vk_model_names(&m, names);
		free(names);
	}
	if (vk_model_open(&m, blob, size) == 0 && m.h->nrules) {
		struct vk_inst in = { .word = 0, .reset_ns = { VK_NEVER, VK_NEVER }, .expiry_ns = VK_NEVER };
		uint64_t now = 0;
		const uint8_t *d = size > m.h->size ? data + m.h->size : data;
		size_t n = size > m.h->size ? size - m.h->size : size;
		for (size_t i = 0; i < 256 && i < n; i++) {
			vk_s64 f[VK_MAX_FIELDS];
			for (int k = 0; k < VK_MAX_FIELDS; k++)
				f[k] = (vk_s64)d[(i + k) % n] - 2;
			const struct vk_rule *r = &m.rules[d[i] % m.h->nrules];
			now += d[i];
			if (vk_rule_holds(&m, r, f))
				check_ltl(&m, &in, vk_decide(&m, r, &in, f, now));
			if (d[i] & 1)
				check_ltl(&m, &in, vk_expire(&m, &in, now));
		}
	}
	free(blob);
	return 0;
}
