/*
 * vk_fuzz.c — libFuzzer target for include/vigil/vk.h: vk_model_open() on
 * arbitrary bytes (the BPF loader and the in-process runtime map blobs),
 * then, when it accepts them, steps of every rule with field values and
 * times drawn from the input.  vk_model_open promises that no step reads
 * outside an accepted blob; ASan holds it to that.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vigil/vk.h"

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
		for (size_t i = 0; i < 64 && i < size; i++) {
			vk_s64 f[VK_MAX_FIELDS];
			for (int k = 0; k < VK_MAX_FIELDS; k++)
				f[k] = (vk_s64)data[(i + k) % size] - 2;
			const struct vk_rule *r = &m.rules[data[i] % m.h->nrules];
			now += data[i];
			if (vk_rule_holds(&m, r, f))
				vk_decide(&m, r, &in, f, now);
			if (data[i] & 1)
				vk_expire(&m, &in, now);
		}
	}
	free(blob);
	return 0;
}
