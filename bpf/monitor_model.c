// SPDX-License-Identifier: MIT OR Apache-2.0
/*
 * The compiled model the loader is given (`vigil monitor` writes it with
 * cli/model's Compiled::to_blob): read, validated by vk_model_open (every
 * offset and index, so a corrupt file is refused, never stepped), checked
 * against this engine's limits, and its rules' sources resolved to
 * tracepoint and uprobe slots.  Every error names the file, or the binding
 * line of the rule it is about.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define VIGIL_FIELDS_TABLE
#include "loader_util.h"
#include "monitor_model.h"

const char *const scope_names[] = { "global", "cpu", "task", "object" };
static const char *const mode_names[] = { "plain", "start", "run" };
static const char *const atom_op_names[] = { "pulse", "set", "update" };
static const char *const op_names[] = { "==", "!=", "<", "<=", ">", ">=" };

static const struct monitor_model *current; /* for rule_error */

static void rule_error(const struct model_rule *r, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));
static void rule_error(const struct model_rule *r, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: error: %s:%u: ", lu_prog_name, current->binding, r->bind_line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(LU_EXIT_ERROR);
}

static bool is_ident(const char *s)
{
	if (!*s || !(isalpha((unsigned char)*s) || *s == '_'))
		return false;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return false;
	return true;
}

/* The field names of a source, own fields then the common ones. */
static int source_fields(const struct model_rule *r, const char **out)
{
	int n = 0;

	if (r->kind == SRC_TP && r->tp >= 0) {
		const struct vigil_tp_desc *t = &vigil_tracepoints[r->tp];

		for (int i = 0; i < t->nfields; i++)
			out[n++] = t->fields[i];
	} else if (r->kind == SRC_CALL) {
		for (int i = 0; i < VIGIL_NCALL_FIELDS; i++)
			out[n++] = vigil_call_fields[i];
	} else if (r->kind == SRC_RETURN) {
		for (int i = 0; i < VIGIL_NRETURN_FIELDS; i++)
			out[n++] = vigil_return_fields[i];
	}
	for (int i = 0; i < VIGIL_NCOMMON; i++)
		out[n++] = vigil_common_fields[i];
	return n;
}

const char *model_field_name(const struct model_rule *r, int idx)
{
	const char *f[VIGIL_MAX_FIELDS + VIGIL_NCOMMON];
	int n = source_fields(r, f);

	return idx >= 0 && idx < n ? f[idx] : "?";
}

/* `tp:[SYSTEM:]NAME`, as sources::tracepoint. */
static int find_tracepoint(const char *text)
{
	const char *colon = strchr(text, ':');
	const char *name = colon ? colon + 1 : text;
	size_t syslen = colon ? (size_t)(colon - text) : 0;

	for (int i = 0; i < VIGIL_NR_TRACEPOINTS; i++) {
		const struct vigil_tp_desc *t = &vigil_tracepoints[i];

		if (strcmp(t->name, name))
			continue;
		if (!colon || syslen == 0 ||
		    (strlen(t->system) == syslen && !strncmp(t->system, text, syslen)))
			return i;
	}
	return -1;
}

/* One uprobe slot per distinct (kind, library, function). */
static void uprobe_slot(struct monitor_model *m, struct model_rule *r)
{
	for (int i = 0; i < m->nuprobes; i++) {
		struct uprobe_src *u = &m->uprobes[i];

		if (u->kind == r->kind && !strcmp(u->func, r->func) &&
		    ((!u->lib && !r->lib) || (u->lib && r->lib && !strcmp(u->lib, r->lib)))) {
			r->slot = u->slot;
			return;
		}
	}
	if (m->nuprobes == VIGIL_MAX_UPROBES)
		rule_error(r, "too many function sources (at most %d)", VIGIL_MAX_UPROBES);
	struct uprobe_src *u = &m->uprobes[m->nuprobes++];

	u->kind = r->kind;
	u->lib = r->lib;
	u->func = r->func;
	u->slot = VIGIL_NR_TRACEPOINTS + m->nuprobes - 1;
	u->first_rule = (int)(r - m->rules);
	r->slot = u->slot;
}

static void parse_source(struct monitor_model *m, struct model_rule *r, const char *text)
{
	const char *rest, *colon;

	r->source_text = text;
	if (!strncmp(text, "tp:", 3)) {
		colon = strchr(text + 3, ':');
		r->kind = SRC_TP;
		r->tp_name = lu_xstrdup(colon ? colon + 1 : text + 3);
		if (!is_ident(r->tp_name))
			rule_error(r, "`%s` is not a tracepoint name", text + 3);
		/* A tracepoint vigil has no handler for is an error only after
		 * the kernel check (model_check_handlers): a kernel without it
		 * is the more useful message. */
		r->tp = find_tracepoint(text + 3);
		r->slot = r->tp;
		return;
	}
	if (!strncmp(text, "call:", 5)) {
		r->kind = SRC_CALL;
		rest = text + 5;
	} else if (!strncmp(text, "return:", 7)) {
		r->kind = SRC_RETURN;
		rest = text + 7;
	} else {
		rule_error(r, "unknown source `%s` (expected tp:, call: or return:)", text);
	}
	colon = strrchr(rest, ':');
	if (colon) {
		r->lib = strndup(rest, colon - rest);
		r->func = lu_xstrdup(colon + 1);
		if (!*r->lib)
			rule_error(r, "empty library in `%s`", text);
	} else {
		r->func = lu_xstrdup(rest);
	}
	if (!is_ident(r->func))
		rule_error(r, "`%s` is not a function name", r->func);
	uprobe_slot(m, r);
}

/* The whole file, in a buffer malloc aligns for vk_model_open. */
static void *read_blob(const char *file, size_t *size)
{
	FILE *f = fopen(file, "rb");
	size_t cap = 1 << 16, n = 0;
	char *buf;

	if (!f)
		lu_die("cannot read the compiled model %s: %s", file, strerror(errno));
	buf = lu_xcalloc(1, cap);
	for (size_t got; (got = fread(buf + n, 1, cap - n, f)) > 0;) {
		n += got;
		if (n == cap) {
			if (cap >= (64u << 20))
				lu_die("%s: larger than 64 MiB: not a compiled model", file);
			buf = lu_xrealloc(buf, cap *= 2);
		}
	}
	if (ferror(f))
		lu_die("cannot read the compiled model %s: %s", file, strerror(errno));
	fclose(f);
	*size = n;
	return buf;
}

/* vk_model_open's checks, then this engine's own. */
static void open_blob(struct monitor_model *m, const char *file)
{
	size_t size;
	void *blob = read_blob(file, &size);
	const char *err = vk_model_open(&m->vk, blob, size);
	const struct vk_header *h = m->vk.h;

	if (err)
		lu_die("%s: %s", file, err);
	for (unsigned g = 0; h->kind == VK_HA && g < h->nguards; g++)
		if (m->vk.guards[g].n > VIGIL_MAX_GUARD_CMPS)
			lu_die("%s: guard %u has %u comparisons: the eBPF monitor takes at most %d", file, g,
			       m->vk.guards[g].n, VIGIL_MAX_GUARD_CMPS);
	if (h->kind == VK_LTL && (h->scope == VK_GLOBAL || h->scope == VK_CPU))
		lu_die("%s: an LTL model of scope %s: the eBPF monitor runs LTL per task or object", file,
		       scope_names[h->scope]);
	if (h->kind == VK_LTL && (h->nstates > VIGIL_LTL_MAX_STATES || h->nevents > VIGIL_LTL_MAX_ATOMS))
		lu_die("%s: %u Büchi states and %u atoms: the eBPF monitor packs an LTL instance in 64 bits, "
		       "at most %d states and %d atoms",
		       file, h->nstates, h->nevents, VIGIL_LTL_MAX_STATES, VIGIL_LTL_MAX_ATOMS);
	for (unsigned s = 0; h->kind == VK_LTL && s < h->nstates; s++)
		if (m->vk.ltl_states[s].nterms > VIGIL_LTL_MAX_TERMS)
			lu_die("%s: the label of Büchi state %u has %u terms: the eBPF monitor takes at most %d",
			       file, s, m->vk.ltl_states[s].nterms, VIGIL_LTL_MAX_TERMS);
	if (h->nstates > VIGIL_MAX_STATES || h->nevents > VIGIL_MAX_EVENTS ||
	    (unsigned long)h->nstates * h->nevents > VIGIL_MAX_CELLS)
		lu_die("%s: %u states and %u events: the eBPF monitor takes at most %u of each and %u cells", file,
		       h->nstates, h->nevents, VIGIL_MAX_STATES, VIGIL_MAX_CELLS);
	if (h->nevents == 0 || h->nrules == 0)
		lu_die("%s: no rules: nothing feeds the model's events", file);
}

/* A rule of the blob: its source, key and conditions within this engine. */
static void load_rule(struct monitor_model *m, int i, const char *const *sources)
{
	struct model_rule *r = &m->rules[i];
	const struct vk_rule *vr = &m->vk.rules[i];
	const char *f[VIGIL_MAX_FIELDS + VIGIL_NCOMMON];
	int nfields;

	r->vk = vr;
	r->bind_line = vr->line;
	r->key = vr->key == VK_NO_FIELD ? -1 : vr->key;
	parse_source(m, r, sources[vr->source]);
	nfields = source_fields(r, f);
	if (r->key >= nfields)
		rule_error(r, "source %s has no field #%d", r->source_text, r->key);
	if (r->key < 0 && m->scope != VK_GLOBAL)
		rule_error(r, "a rule needs a key in scope %s", scope_names[m->scope]);
	if (vr->cond_n > VIGIL_MAX_CONDS)
		rule_error(r, "%u conditions: the eBPF monitor handles at most %d per rule", vr->cond_n,
			   VIGIL_MAX_CONDS);
	for (unsigned c = 0; c < vr->cond_n; c++) {
		const struct vk_cmp *cmp = &m->vk.cmps[vr->cond_first + c];

		if (cmp->lhs_kind != VK_FIELD || cmp->rhs_kind != VK_CONST || cmp->op > VK_GE ||
		    cmp->lhs >= nfields)
			rule_error(r, "condition %u of source %s is not `field OP integer`", c + 1, r->source_text);
	}
}

void model_load(struct monitor_model *m, const char *file)
{
	const char **names;

	memset(m, 0, sizeof(*m));
	current = m;
	m->file = file;
	open_blob(m, file);
	names = lu_xcalloc(vk_nnames(&m->vk), sizeof(*names));
	vk_model_names(&m->vk, names);
	m->name = names[VK_NAME_MODEL];
	m->model = names[VK_NAME_MODEL_FILE];
	m->binding = names[VK_NAME_BINDING_FILE];
	m->scope = m->vk.h->scope;
	m->nstates = m->vk.h->nstates;
	m->nevents = m->vk.h->nevents;
	m->states = names + VK_NAME_STATES;
	m->events = m->states + m->nstates;
	m->nrules = m->vk.h->nrules;
	m->rules = lu_xcalloc(m->nrules, sizeof(*m->rules));
	for (int i = 0; i < m->nrules; i++)
		load_rule(m, i, m->events + m->nevents);
}

void model_check_handlers(const struct monitor_model *m)
{
	current = m;
	for (int i = 0; i < m->nrules; i++) {
		const struct model_rule *r = &m->rules[i];

		if (r->kind == SRC_TP && r->tp < 0)
			rule_error(r,
				   "vigil's eBPF monitor has no handler for tracepoint %s (it handles those of "
				   "cli/model/src/sources.rs)",
				   r->tp_name);
	}
	for (int slot = 0; slot < VIGIL_NR_SOURCES; slot++) {
		int cnt = 0;

		for (int i = 0; i < m->nrules; i++)
			if (m->rules[i].slot == slot && ++cnt > VIGIL_MAX_RULES)
				rule_error(&m->rules[i], "too many rules for source %s (at most %d)",
					   m->rules[i].source_text, VIGIL_MAX_RULES);
	}
}

bool model_allows(const struct monitor_model *m, unsigned state, unsigned event)
{
	return state < (unsigned)m->nstates && event < (unsigned)m->nevents &&
	       m->vk.next[state * m->nevents + event] != VK_NONE;
}

const char *model_event_name(const struct monitor_model *m, unsigned event)
{
	if (event == VK_NONE)
		return "none"; /* an invariant: no event, time passed */
	return event < (unsigned)m->nevents ? m->events[event] : "forget";
}

const char *model_where(const struct monitor_model *m, const struct model_rule *r, char *buf, size_t len)
{
	if (r->bind_line == 0) /* no rule: an invariant's timer */
		snprintf(buf, len, "%s", m->binding);
	else
		snprintf(buf, len, "%s:%u", m->binding, r->bind_line);
	return buf;
}

static void print_rule(FILE *out, const struct monitor_model *m, const struct model_rule *r)
{
	const struct vk_rule *vr = r->vk;

	if (m->vk.h->kind == VK_LTL)
		fprintf(out, "rule %u %s %s %s key=%s", r->bind_line, model_event_name(m, vr->event),
			atom_op_names[vr->atom_op % 3], r->source_text,
			r->key < 0 ? "-" : model_field_name(r, r->key));
	else
		fprintf(out, "rule %u %s %s %s key=%s", r->bind_line, model_event_name(m, vr->event),
			mode_names[vr->mode], r->source_text, r->key < 0 ? "-" : model_field_name(r, r->key));
	if (m->vk.h->kind == VK_LTL && vr->atom_op != VK_ATOM_PULSE)
		fprintf(out, " = %s", vr->atom_value ? "true" : "false");
	for (unsigned c = 0; c < vr->cond_n; c++) {
		const struct vk_cmp *cmp = &m->vk.cmps[vr->cond_first + c];

		fprintf(out, " %s %s %s %lld", c ? "&&" : "if", model_field_name(r, cmp->lhs), op_names[cmp->op],
			(long long)cmp->value);
	}
	fputc('\n', out);
}

/* An LTL model: its states with successors and initial marks, its atoms. */
static void print_ltl(FILE *out, const struct monitor_model *m)
{
	const struct vk_ltl *l = m->vk.ltl;

	for (int s = 0; s < m->nstates; s++) {
		fprintf(out, "state %s%s ->", m->states[s], l->init & (1u << s) ? " initial" : "");
		for (int t = 0; t < m->nstates; t++)
			if (m->vk.ltl_states[s].succ & (1u << t))
				fprintf(out, " %s", m->states[t]);
		fputc('\n', out);
	}
	for (int e = 0; e < m->nevents; e++)
		fprintf(out, "atom %s\n", m->events[e]);
}

void model_print(FILE *out, const struct monitor_model *m)
{
	fprintf(out, "name %s\nmodel %s\nbinding %s\nscope %s\n", m->name, m->model, m->binding,
		scope_names[m->scope]);
	if (m->vk.h->kind == VK_LTL) {
		print_ltl(out, m);
		for (int i = 0; i < m->nrules; i++)
			print_rule(out, m, &m->rules[i]);
		return;
	}
	for (int s = 0; s < m->nstates; s++)
		fprintf(out, "state %s%s\n", m->states[s], m->vk.finals[s] ? " final" : "");
	for (int e = 0; e < m->nevents; e++)
		fprintf(out, "event %s\n", m->events[e]);
	for (int s = 0; s < m->nstates; s++)
		for (int e = 0; e < m->nevents; e++)
			if (model_allows(m, s, e))
				fprintf(out, "transition %s %s %s\n", m->states[s], m->events[e],
					m->states[m->vk.next[s * m->nevents + e]]);
	for (int i = 0; i < m->nrules; i++)
		print_rule(out, m, &m->rules[i]);
}
