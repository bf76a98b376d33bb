/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * The loader's view of the compiled model (include/vigil/vk.h) it is given:
 * the blob mapped with vk_model_open, its names, and per rule what the
 * loader needs to attach it (tracepoint or uprobe slot, library, function).
 */
#ifndef VIGIL_BPF_MONITOR_MODEL_H
#define VIGIL_BPF_MONITOR_MODEL_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

#include "monitor.h"

enum src_kind { SRC_TP, SRC_CALL, SRC_RETURN };

struct model_rule {
	const struct vk_rule *vk;
	unsigned bind_line;
	enum src_kind kind;
	int tp; /* SRC_TP: catalogue index, or -1 if not in it */
	char *tp_name;
	char *lib; /* SRC_CALL/RETURN: as written, or NULL */
	char *func;
	const char *source_text;
	int slot; /* source slot: tp index, or uprobe slot */
	int key;  /* field index, or -1 */
};

struct uprobe_src {
	enum src_kind kind;
	char *lib;
	char *func;
	char *path; /* resolved file */
	int slot;
	int first_rule;
};

struct monitor_model {
	const char *file;
	struct vk_model vk;
	const char *name, *model, *binding;
	int scope;
	int nstates, nevents;
	const char **states, **events;
	int nrules;
	struct model_rule *rules;
	int nuprobes;
	struct uprobe_src uprobes[VIGIL_MAX_UPROBES];
};

extern const char *const scope_names[];

/* Read and check FILE (exit 2 with FILE: message when it is not a compiled
 * model the engine runs). */
void model_load(struct monitor_model *m, const char *file);
/* After the kernel check: every tracepoint has a handler, at most
 * VIGIL_MAX_RULES per source. */
void model_check_handlers(const struct monitor_model *m);

bool model_allows(const struct monitor_model *m, unsigned state, unsigned event);
const char *model_event_name(const struct monitor_model *m, unsigned event);
const char *model_field_name(const struct model_rule *r, int idx);
/* BINDING:LINE of a rule, for messages. */
const char *model_where(const struct monitor_model *m, const struct model_rule *r, char *buf, size_t len);
/* The model as the engine sees it, one line per state, event, transition
 * and rule (--print-model). */
void model_print(FILE *out, const struct monitor_model *m);

#endif
