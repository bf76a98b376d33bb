// SPDX-License-Identifier: MIT OR Apache-2.0
/*
 * vigil-bpf-monitor: loads vigil's generic eBPF monitor (monitor.bpf.c) with
 * one model and binding, given as a compiled-monitor spec (bpf/README.md,
 * written by `vigil monitor`), and reports violations until a duration, a
 * signal or the monitored command's exit.
 *
 *   vigil-bpf-monitor [--duration S] [--json] [--reactor log|stop]
 *                     [--binary PATH] [--check] [--unlink-spec]
 *                     SPEC [-- COMMAND ARGS...]
 *
 * Exit status: 0 no violation, 1 violations, 2 error.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/types.h>

#define VIGIL_FIELDS_TABLE
#include "loader_util.h"
#include "monitor.h"
#include "symbolizer.h"
#include "monitor_symbols.h"
#include "monitor.skel.h"

#define EXIT_OK 0
#define EXIT_VIOLATIONS 1
#define EXIT_ERROR LU_EXIT_ERROR

#define SAVE_ARGS 0x80000000u
#define DEFAULT_INSTANCES 65536
#define MAX_INSTANCES (1u << 22)

/* ------------------------------------------------------------------------
 * The compiled-monitor spec (format: bpf/README.md)
 */

enum src_kind { SRC_TP, SRC_CALL, SRC_RETURN };

struct spec_cond {
	char *field_name;
	int field;
	int op;
	long long value;
};

struct spec_rule {
	int spec_line;
	unsigned bind_line;
	int event; /* -1: forget */
	int mode;
	enum src_kind kind;
	int tp;     /* SRC_TP: catalogue index, or -1 if not in it */
	char *tp_name;
	char *lib;  /* SRC_CALL/RETURN: as written, or NULL */
	char *func;
	char *source_text;
	int slot; /* source slot: tp index, or uprobe slot */
	char *key_name; /* NULL: no key */
	int key;        /* field index, or -1 */
	int ncond;
	struct spec_cond cond[VIGIL_MAX_CONDS];
};

struct uprobe_src {
	enum src_kind kind;
	char *lib;
	char *func;
	char *path; /* resolved file */
	int slot;
	int first_rule;
};

struct spec {
	const char *file;
	char *name;
	char *model;
	char *binding;
	int scope;
	unsigned instances;
	int nstates;
	char **states;
	bool *final;
	int nevents;
	char **events;
	int *table; /* nstates * nevents, -1 invalid */
	int nrules;
	struct spec_rule *rules;
	int nuprobes;
	struct uprobe_src uprobes[VIGIL_MAX_UPROBES];
	bool has_start_rules;
};

static const char *scope_names[] = { "global", "cpu", "task", "object" };
static const char *mode_names[] = { "plain", "start", "run" };
static const char *op_names[] = { "==", "!=", "<", "<=", ">", ">=" };

static void spec_error(const struct spec *s, int line, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 3, 4)));
static void spec_error(const struct spec *s, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: error: %s:%d: ", lu_prog_name, s->file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_ERROR);
}

static int find_name(char **names, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
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
static int source_fields(const struct spec_rule *r, const char **out)
{
	int n = 0;

	if (r->kind == SRC_TP) {
		const struct vigil_tp_desc *t = &vigil_tracepoints[r->tp];

		for (int i = 0; i < t->nfields; i++)
			out[n++] = t->fields[i];
	} else if (r->kind == SRC_CALL) {
		for (int i = 0; i < VIGIL_NCALL_FIELDS; i++)
			out[n++] = vigil_call_fields[i];
	} else {
		for (int i = 0; i < VIGIL_NRETURN_FIELDS; i++)
			out[n++] = vigil_return_fields[i];
	}
	for (int i = 0; i < VIGIL_NCOMMON; i++)
		out[n++] = vigil_common_fields[i];
	return n;
}

static int field_index(const struct spec_rule *r, const char *name)
{
	const char *f[VIGIL_MAX_FIELDS];
	int n = source_fields(r, f);

	for (int i = 0; i < n; i++)
		if (!strcmp(f[i], name))
			return i;
	return -1;
}

static const char *field_name(const struct spec_rule *r, int idx)
{
	const char *f[VIGIL_MAX_FIELDS];
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

static void parse_source(struct spec *s, struct spec_rule *r, const char *text)
{
	r->source_text = lu_xstrdup(text);
	if (!strncmp(text, "tp:", 3)) {
		const char *colon = strchr(text + 3, ':');

		r->kind = SRC_TP;
		r->tp_name = lu_xstrdup(colon ? colon + 1 : text + 3);
		if (!is_ident(r->tp_name))
			spec_error(s, r->spec_line, "`%s` is not a tracepoint name", text + 3);
		/* A tracepoint vigil has no handler for is an error only after
		 * the kernel check (check_tracepoints): a kernel without it is
		 * the more useful message. */
		r->tp = find_tracepoint(text + 3);
		r->slot = r->tp;
		return;
	}
	const char *rest;

	if (!strncmp(text, "call:", 5)) {
		r->kind = SRC_CALL;
		rest = text + 5;
	} else if (!strncmp(text, "return:", 7)) {
		r->kind = SRC_RETURN;
		rest = text + 7;
	} else {
		spec_error(s, r->spec_line, "unknown source `%s` (expected tp:, call: or return:)", text);
	}
	const char *colon = strrchr(rest, ':');

	if (colon) {
		r->lib = strndup(rest, colon - rest);
		r->func = lu_xstrdup(colon + 1);
		if (!*r->lib)
			spec_error(s, r->spec_line, "empty library in `%s`", text);
	} else {
		r->func = lu_xstrdup(rest);
	}
	if (!is_ident(r->func))
		spec_error(s, r->spec_line, "`%s` is not a function name", r->func);

	/* One uprobe slot per distinct (kind, lib, function). */
	for (int i = 0; i < s->nuprobes; i++) {
		struct uprobe_src *u = &s->uprobes[i];

		if (u->kind == r->kind && !strcmp(u->func, r->func) &&
		    ((!u->lib && !r->lib) || (u->lib && r->lib && !strcmp(u->lib, r->lib)))) {
			r->slot = u->slot;
			return;
		}
	}
	if (s->nuprobes == VIGIL_MAX_UPROBES)
		spec_error(s, r->spec_line, "too many function sources (at most %d)", VIGIL_MAX_UPROBES);
	struct uprobe_src *u = &s->uprobes[s->nuprobes++];

	u->kind = r->kind;
	u->lib = r->lib;
	u->func = r->func;
	u->slot = VIGIL_NR_TRACEPOINTS + s->nuprobes - 1;
	u->first_rule = (int)(r - s->rules);
	r->slot = u->slot;
}

static long long parse_int(const struct spec *s, int line, const char *text)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(text, &end, 0);
	if (errno || end == text || *end)
		spec_error(s, line, "`%s` is not an integer", text);
	return v;
}

/* Split a line into whitespace-separated words (in place). */
static int split(char *line, char **w, int max)
{
	int n = 0;

	for (char *p = strtok(line, " \t\r\n"); p && n < max; p = strtok(NULL, " \t\r\n"))
		w[n++] = p;
	return n;
}

static char *rest_of_line(char *line, const char *kw)
{
	char *p = line + strlen(kw);
	size_t n;

	while (*p == ' ' || *p == '\t')
		p++;
	n = strlen(p);
	while (n && (p[n - 1] == '\n' || p[n - 1] == '\r' || p[n - 1] == ' '))
		p[--n] = 0;
	return p;
}

struct pending_trans {
	char *from, *event, *to;
	int line;
};

static void parse_spec(struct spec *s, const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0;
	bool header = false;
	struct pending_trans *trans = NULL;
	int ntrans = 0, captrans = 0;
	char **rule_lines = NULL;
	int *rule_linenos = NULL;
	int caprules = 0;

	memset(s, 0, sizeof(*s));
	s->file = path;
	s->scope = -1;
	s->instances = DEFAULT_INSTANCES;
	if (!f)
		lu_die("cannot read the monitor spec %s: %s", path, strerror(errno));
	s->states = lu_xcalloc(VIGIL_MAX_STATES + 1, sizeof(char *));
	s->final = lu_xcalloc(VIGIL_MAX_STATES + 1, sizeof(bool));
	s->events = lu_xcalloc(VIGIL_MAX_EVENTS + 1, sizeof(char *));

	while (getline(&line, &cap, f) >= 0) {
		char *w[64];
		char copy[4096];
		int n;

		lineno++;
		if (strlen(line) >= sizeof(copy))
			spec_error(s, lineno, "line too long");
		strcpy(copy, line);
		n = split(copy, w, 64);
		if (n == 0 || w[0][0] == '#')
			continue;
		if (!header) {
			if (strcmp(w[0], "vigil-monitor"))
				spec_error(s, lineno, "not a vigil monitor spec (expected `vigil-monitor 1`)");
			if (n != 2 || strcmp(w[1], "1"))
				spec_error(s, lineno, "unsupported spec version `%s` (this monitor reads version 1)",
					   n > 1 ? w[1] : "");
			header = true;
			continue;
		}
		if (!strcmp(w[0], "name") && n == 2) {
			s->name = lu_xstrdup(w[1]);
		} else if (!strcmp(w[0], "model") && n >= 2) {
			s->model = lu_xstrdup(rest_of_line(line, "model"));
		} else if (!strcmp(w[0], "binding") && n >= 2) {
			s->binding = lu_xstrdup(rest_of_line(line, "binding"));
		} else if (!strcmp(w[0], "scope") && n == 2) {
			s->scope = -1;
			for (int i = 0; i < 4; i++)
				if (!strcmp(w[1], scope_names[i]))
					s->scope = i;
			if (s->scope < 0)
				spec_error(s, lineno, "unknown scope `%s` (global, cpu, task or object)", w[1]);
		} else if (!strcmp(w[0], "instances") && n == 2) {
			long long v = parse_int(s, lineno, w[1]);

			if (v < 1 || v > MAX_INSTANCES)
				spec_error(s, lineno, "instances must be between 1 and %u", MAX_INSTANCES);
			s->instances = (unsigned)v;
		} else if (!strcmp(w[0], "state") && (n == 2 || (n == 3 && !strcmp(w[2], "final")))) {
			if (!is_ident(w[1]))
				spec_error(s, lineno, "`%s` is not a state name", w[1]);
			if (find_name(s->states, s->nstates, w[1]) >= 0)
				spec_error(s, lineno, "state `%s` declared twice", w[1]);
			if (s->nstates == VIGIL_MAX_STATES)
				spec_error(s, lineno, "too many states (at most %d)", VIGIL_MAX_STATES);
			s->final[s->nstates] = n == 3;
			s->states[s->nstates++] = lu_xstrdup(w[1]);
		} else if (!strcmp(w[0], "event") && n == 2) {
			if (!is_ident(w[1]) || !strcmp(w[1], "forget"))
				spec_error(s, lineno, "`%s` is not an event name", w[1]);
			if (find_name(s->events, s->nevents, w[1]) >= 0)
				spec_error(s, lineno, "event `%s` declared twice", w[1]);
			if (s->nevents == VIGIL_MAX_EVENTS)
				spec_error(s, lineno, "too many events (at most %d)", VIGIL_MAX_EVENTS);
			s->events[s->nevents++] = lu_xstrdup(w[1]);
		} else if (!strcmp(w[0], "transition") && n == 4) {
			if (ntrans == captrans) {
				captrans = captrans ? 2 * captrans : 64;
				trans = lu_xrealloc(trans, captrans * sizeof(*trans));
			}
			trans[ntrans++] = (struct pending_trans){ lu_xstrdup(w[1]), lu_xstrdup(w[2]),
								  lu_xstrdup(w[3]), lineno };
		} else if (!strcmp(w[0], "rule")) {
			if (s->nrules == caprules) {
				caprules = caprules ? 2 * caprules : 16;
				rule_lines = lu_xrealloc(rule_lines, caprules * sizeof(char *));
				rule_linenos = lu_xrealloc(rule_linenos, caprules * sizeof(int));
			}
			rule_lines[s->nrules] = lu_xstrdup(line);
			rule_linenos[s->nrules++] = lineno;
		} else {
			spec_error(s, lineno, "cannot parse `%s`", rest_of_line(line, ""));
		}
	}
	free(line);
	fclose(f);

	if (!header)
		spec_error(s, lineno, "empty spec (expected `vigil-monitor 1`)");
	if (!s->name)
		spec_error(s, lineno, "no `name` line");
	if (!s->model)
		spec_error(s, lineno, "no `model` line");
	if (!s->binding)
		s->binding = lu_xstrdup("(no binding)");
	if (s->scope < 0)
		spec_error(s, lineno, "no `scope` line");
	if (s->nstates == 0)
		spec_error(s, lineno, "no states (the first `state` line is the initial state)");
	if (s->nevents == 0)
		spec_error(s, lineno, "no events");

	s->table = lu_xcalloc((size_t)s->nstates * s->nevents, sizeof(int));
	for (int i = 0; i < s->nstates * s->nevents; i++)
		s->table[i] = -1;
	for (int i = 0; i < ntrans; i++) {
		struct pending_trans *t = &trans[i];
		int from = find_name(s->states, s->nstates, t->from);
		int ev = find_name(s->events, s->nevents, t->event);
		int to = find_name(s->states, s->nstates, t->to);

		if (from < 0)
			spec_error(s, t->line, "unknown state `%s`", t->from);
		if (ev < 0)
			spec_error(s, t->line, "unknown event `%s`", t->event);
		if (to < 0)
			spec_error(s, t->line, "unknown state `%s`", t->to);
		int *cell = &s->table[from * s->nevents + ev];

		if (*cell >= 0 && *cell != to)
			spec_error(s, t->line, "event `%s` leads from state `%s` to both `%s` and `%s`",
				   t->event, t->from, s->states[*cell], t->to);
		*cell = to;
	}

	if (s->nrules == 0)
		spec_error(s, lineno, "no rules: nothing feeds the model's events");
	s->rules = lu_xcalloc(s->nrules, sizeof(struct spec_rule));
	for (int i = 0; i < s->nrules; i++) {
		struct spec_rule *r = &s->rules[i];
		char *w[64];
		int n = split(rule_lines[i], w, 64), k;

		r->spec_line = rule_linenos[i];
		/* rule LINE EVENT MODE SOURCE key=FIELD|key=- [if F OP V [&& F OP V]...] */
		if (n < 6)
			spec_error(s, r->spec_line,
				   "a rule is `rule LINE EVENT MODE SOURCE key=FIELD [if FIELD OP VALUE [&& ...]]`");
		long long bl = parse_int(s, r->spec_line, w[1]);

		if (bl < 0 || bl > INT_MAX)
			spec_error(s, r->spec_line, "bad binding line `%s`", w[1]);
		r->bind_line = (unsigned)bl;
		if (!strcmp(w[2], "forget")) {
			r->event = -1;
		} else {
			r->event = find_name(s->events, s->nevents, w[2]);
			if (r->event < 0)
				spec_error(s, r->spec_line, "unknown event `%s`", w[2]);
		}
		r->mode = -1;
		for (int m = 0; m < 3; m++)
			if (!strcmp(w[3], mode_names[m]))
				r->mode = m;
		if (r->mode < 0)
			spec_error(s, r->spec_line, "unknown mode `%s` (plain, start or run)", w[3]);
		if (r->mode != VIGIL_MODE_PLAIN)
			s->has_start_rules = true;
		parse_source(s, r, w[4]);
		if (strncmp(w[5], "key=", 4))
			spec_error(s, r->spec_line, "expected key=FIELD or key=-, not `%s`", w[5]);
		r->key = -1;
		if (!strcmp(w[5] + 4, "-")) {
			if (s->scope != VIGIL_SCOPE_GLOBAL)
				spec_error(s, r->spec_line, "a %s-scope rule needs a key", scope_names[s->scope]);
		} else {
			r->key_name = lu_xstrdup(w[5] + 4);
		}
		k = 6;
		if (k < n) {
			if (strcmp(w[k], "if"))
				spec_error(s, r->spec_line, "expected `if`, not `%s`", w[k]);
			k++;
			for (;;) {
				if (k + 3 > n)
					spec_error(s, r->spec_line, "a condition is FIELD OP VALUE");
				if (r->ncond == VIGIL_MAX_CONDS)
					spec_error(s, r->spec_line, "too many conditions (at most %d)", VIGIL_MAX_CONDS);
				struct spec_cond *c = &r->cond[r->ncond++];

				c->field_name = lu_xstrdup(w[k]);
				c->op = -1;
				for (int o = 0; o < 6; o++)
					if (!strcmp(w[k + 1], op_names[o]))
						c->op = o;
				if (c->op < 0)
					spec_error(s, r->spec_line, "unknown operator `%s`", w[k + 1]);
				c->value = parse_int(s, r->spec_line, w[k + 2]);
				k += 3;
				if (k == n)
					break;
				if (strcmp(w[k], "&&"))
					spec_error(s, r->spec_line, "expected `&&`, not `%s`", w[k]);
				k++;
			}
		}
		free(rule_lines[i]);
	}
	free(rule_lines);
	free(rule_linenos);
	for (int i = 0; i < ntrans; i++) {
		free(trans[i].from);
		free(trans[i].event);
		free(trans[i].to);
	}
	free(trans);

}

/* After the kernel check: every tracepoint has a handler, every field
 * exists, at most VIGIL_MAX_RULES per source. */
static void resolve_rules(struct spec *s)
{
	for (int i = 0; i < s->nrules; i++) {
		struct spec_rule *r = &s->rules[i];

		if (r->kind == SRC_TP && r->tp < 0)
			spec_error(s, r->spec_line,
				   "vigil's eBPF monitor has no handler for tracepoint %s (it handles those of "
				   "cli/model/src/sources.rs)",
				   r->tp_name);
		if (r->key_name) {
			r->key = field_index(r, r->key_name);
			if (r->key < 0)
				spec_error(s, r->spec_line, "source %s has no field `%s`", r->source_text,
					   r->key_name);
		}
		for (int c = 0; c < r->ncond; c++) {
			r->cond[c].field = field_index(r, r->cond[c].field_name);
			if (r->cond[c].field < 0)
				spec_error(s, r->spec_line, "source %s has no field `%s`", r->source_text,
					   r->cond[c].field_name);
		}
	}
	for (int slot = 0; slot < VIGIL_NR_SOURCES; slot++) {
		int cnt = 0;

		for (int i = 0; i < s->nrules; i++)
			if (s->rules[i].slot == slot && ++cnt > VIGIL_MAX_RULES)
				spec_error(s, s->rules[i].spec_line, "too many rules for source %s (at most %d)",
					   s->rules[i].source_text, VIGIL_MAX_RULES);
	}
}

static const char *event_name(const struct spec *s, int ev)
{
	return ev < 0 || ev == VIGIL_EV_FORGET ? "forget" : s->events[ev];
}

/* ------------------------------------------------------------------------
 * Output
 */

struct options {
	double duration;
	bool json;
	bool stop;
	bool check;
	bool unlink_spec;
	const char *binary;
	const char *spec;
	char **command;
};

static struct options opt;
static struct spec spec;
static struct monitor_bpf *skel;
static volatile sig_atomic_t exiting;
static bool stop_seen;
static unsigned long long nreports;
static pid_t child = -1;
static int child_gate = -1; /* releases the command (lu_child_start) */
static char *binary_path; /* resolved --binary / command */

static void json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c == '\t')
			fputs("\\t", out);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static void json_symbol(FILE *out, const struct vg_symbol *sy)
{
	fprintf(out, "\"function\":");
	json_str(out, sy->function);
	if (sy->file[0]) {
		fprintf(out, ",\"file\":");
		json_str(out, sy->file);
		fprintf(out, ",\"line\":%u,\"column\":%u", sy->line, sy->column);
	}
}

static const char *where(const struct spec_rule *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s:%u", spec.binding, r->bind_line);
	return buf;
}

static struct uprobe_src *uprobe_of_slot(int slot)
{
	for (int i = 0; i < spec.nuprobes; i++)
		if (spec.uprobes[i].slot == slot)
			return &spec.uprobes[i];
	return NULL;
}

#define SYMLEN 512

/* One violation as the loader reports it: the record, its rule, and the
 * stacks resolved. */
struct report {
	const struct vigil_violation *v;
	const struct spec_rule *r;
	char comm[17];
	const __u64 *kstack;
	int nk, nu;
	__u64 ustack[VIGIL_STACK_DEPTH + 1];
	struct proc_maps maps;
	struct elf_info *fallback;
	int64_t bias;
	bool have_bias;
	struct vg_symbol usyms[(VIGIL_STACK_DEPTH + 1) * ULINES_INLINE];
	int ucounts[VIGIL_STACK_DEPTH + 1];
	unsigned st;
	const char *state, *event, *keyname;
};

/* The kernel frames from where the tracepoint fired, and the user frames:
 * at a function's entry the immediate caller is missing from the
 * frame-pointer walk; put it back. */
static void collect_stacks(struct report *rp)
{
	const struct vigil_violation *v = rp->v;
	int nu = v->ustack_sz > 0 ? v->ustack_sz / 8 : 0;

	rp->kstack = v->kstack;
	rp->nk = v->kstack_sz > 0 ? v->kstack_sz / 8 : 0;
	while (rp->nk > 1 && is_monitor_frame(rp->kstack[0])) {
		rp->kstack++;
		rp->nk--;
	}
	for (int i = 0, j = 0; i < nu; i++) {
		rp->ustack[j++] = v->ustack[i];
		if (i == 0 && v->entry_ret && (nu < 2 || v->ustack[1] != v->entry_ret))
			rp->ustack[j++] = v->entry_ret;
		if (i == nu - 1)
			nu = j;
	}
	rp->nu = nu;
	if (nu) {
		struct uprobe_src *u = uprobe_of_slot(v->source);

		read_maps(v->tgid, &rp->maps);
		/* Fallback when the process is gone: the probed function's load
		 * bias from the first frame of a call: probe (page-aligned). */
		if (u && u->kind == SRC_CALL && u->path && (rp->fallback = elf_load(u->path))) {
			const struct elf_sym *fs = elf_find_func(rp->fallback, u->func);

			if (fs) {
				rp->bias = (int64_t)((v->ustack[0] - fs->addr) & ~0xfffULL);
				rp->have_bias = true;
			}
		}
	}
	ulines(&rp->maps, rp->ustack, nu, rp->fallback, rp->bias, rp->have_bias, rp->usyms, rp->ucounts);
}

static void json_stacks(FILE *out, struct report *rp)
{
	char sym[SYMLEN];

	fprintf(out, ",\"stack\":[");
	for (int i = 0; i < rp->nk; i++) {
		ksym_name(rp->kstack[i], sym, sizeof(sym));
		fprintf(out, "%s{\"addr\":\"0x%llx\",\"sym\":", i ? "," : "", (unsigned long long)rp->kstack[i]);
		json_str(out, sym);
		fputc('}', out);
	}
	fprintf(out, "],\"user_stack\":[");
	for (int i = 0; i < rp->nu; i++) {
		const struct vg_symbol *sy = &rp->usyms[i * ULINES_INLINE];

		usym_name(&rp->maps, rp->ustack[i], rp->fallback, rp->bias, rp->have_bias, sym, sizeof(sym));
		fprintf(out, "%s{\"addr\":\"0x%llx\",\"sym\":", i ? "," : "", (unsigned long long)rp->ustack[i]);
		json_str(out, sym);
		if (rp->ucounts[i]) {
			/* the function itself, then what was inlined into it */
			fputc(',', out);
			json_symbol(out, &sy[rp->ucounts[i] - 1]);
			fprintf(out, ",\"inlined\":[");
			for (int k = 0; k + 1 < rp->ucounts[i]; k++) {
				fprintf(out, "%s{", k ? "," : "");
				json_symbol(out, &sy[k]);
				fputc('}', out);
			}
			fputc(']', out);
		}
		fputc('}', out);
	}
	fputc(']', out);
}

static void report_json(FILE *out, struct report *rp)
{
	const struct vigil_violation *v = rp->v;
	char loc[PATH_MAX + 32];
	bool first = true;

	fprintf(out, "{\"type\":\"violation\",\"monitor\":");
	json_str(out, spec.name);
	fprintf(out, ",\"kind\":\"%s\",\"state\":", v->kind == VIGIL_V_NOT_FINAL ? "not-final" : "event");
	json_str(out, rp->state);
	fprintf(out, ",\"event\":");
	json_str(out, rp->event);
	fprintf(out, ",\"allowed\":[");
	for (int e = 0; e < spec.nevents; e++)
		if (spec.table[rp->st * spec.nevents + e] >= 0) {
			fprintf(out, "%s", first ? "" : ",");
			json_str(out, spec.events[e]);
			first = false;
		}
	fprintf(out, "],\"key\":");
	if (rp->keyname) {
		fprintf(out, "{\"field\":");
		json_str(out, rp->keyname);
		fprintf(out, ",\"value\":%lld}", (long long)v->key);
	} else {
		fprintf(out, "null");
	}
	fprintf(out, ",\"cpu\":%u,\"pid\":%u,\"tgid\":%u,\"comm\":", v->cpu, v->pid, v->tgid);
	json_str(out, rp->comm);
	fprintf(out, ",\"time_ns\":%llu,\"source\":", (unsigned long long)v->ktime);
	json_str(out, rp->r->source_text);
	fprintf(out, ",\"binding\":");
	json_str(out, where(rp->r, loc, sizeof(loc)));
	json_stacks(out, rp);
	fprintf(out, ",\"render\":");
	snprintf(loc, sizeof(loc), "vigil render %s --highlight %s:%s", spec.model, rp->state, rp->event);
	json_str(out, loc);
	fprintf(out, "}\n");
}

static void text_stacks(FILE *out, struct report *rp)
{
	char sym[SYMLEN];

	if (rp->nk) {
		fprintf(out, "  kernel stack:\n");
		for (int i = 0; i < rp->nk; i++) {
			ksym_name(rp->kstack[i], sym, sizeof(sym));
			fprintf(out, "    #%-2d 0x%016llx %s\n", i, (unsigned long long)rp->kstack[i], sym);
		}
	}
	if (!rp->nu)
		return;
	fprintf(out, "  user stack:\n");
	for (int i = 0; i < rp->nu; i++) {
		const struct vg_symbol *sy = &rp->usyms[i * ULINES_INLINE];

		usym_name(&rp->maps, rp->ustack[i], rp->fallback, rp->bias, rp->have_bias, sym, sizeof(sym));
		fprintf(out, "    #%-2d 0x%016llx %s\n", i, (unsigned long long)rp->ustack[i], sym);
		for (int k = 0; k < rp->ucounts[i]; k++)
			if (sy[k].file[0])
				fprintf(out, "        %s:%u:%u in %s%s\n", sy[k].file, sy[k].line, sy[k].column,
					sy[k].function, k + 1 < rp->ucounts[i] ? " (inlined)" : "");
	}
}

static void report_text(FILE *out, struct report *rp)
{
	const struct vigil_violation *v = rp->v;
	const char *keyname = rp->keyname;
	char loc[PATH_MAX + 32];
	bool any = false;

	if (v->kind == VIGIL_V_NOT_FINAL)
		fprintf(out, "vigil monitor: %s: violation: instance forgotten in state %s, which is not final\n",
			spec.name, rp->state);
	else
		fprintf(out, "vigil monitor: %s: violation: event %s not allowed in state %s\n", spec.name,
			rp->event, rp->state);
	fprintf(out, "  allowed: ");
	for (int e = 0; e < spec.nevents; e++)
		if (spec.table[rp->st * spec.nevents + e] >= 0) {
			fprintf(out, "%s%s", any ? ", " : "", spec.events[e]);
			any = true;
		}
	fprintf(out, "%s\n", any ? "" : "(none)");
	if (keyname && (!strncmp(keyname, "arg", 3) || !strcmp(keyname, "ret") ||
			!strcmp(keyname, "address") || !strcmp(keyname, "ip")))
		fprintf(out, "  key: %s=0x%llx (%s scope)\n", keyname, (unsigned long long)v->key,
			scope_names[spec.scope]);
	else if (keyname)
		fprintf(out, "  key: %s=%lld (%s scope)\n", keyname, (long long)v->key, scope_names[spec.scope]);
	fprintf(out, "  task: %s pid %u tgid %u, cpu %u, at %llu.%09llu\n", rp->comm, v->pid, v->tgid, v->cpu,
		(unsigned long long)v->ktime / 1000000000ULL, (unsigned long long)v->ktime % 1000000000ULL);
	fprintf(out, "  rule: %s %s %s\n", where(rp->r, loc, sizeof(loc)), rp->event, rp->r->source_text);
	text_stacks(out, rp);
	fprintf(out, "  render: vigil render %s --highlight %s:%s\n", spec.model, rp->state, rp->event);
}

/* The ring buffer's callback: one violation record. */
static int handle_violation(void *ctx, void *data, size_t size)
{
	static struct report rp;
	const struct vigil_violation *v = data;

	(void)ctx;
	if (size < sizeof(*v) || v->rule >= (unsigned)spec.nrules)
		return 0;
	if (opt.stop && stop_seen)
		return 0;
	memset(&rp, 0, sizeof(rp));
	rp.v = v;
	rp.r = &spec.rules[v->rule];
	nreports++;
	memcpy(rp.comm, v->comm, 16);
	collect_stacks(&rp);
	rp.st = v->state < (unsigned)spec.nstates ? v->state : 0;
	rp.state = spec.states[rp.st];
	rp.event = event_name(&spec, v->event == VIGIL_EV_FORGET ? -1 : (int)v->event);
	rp.keyname = rp.r->key >= 0 ? field_name(rp.r, rp.r->key) : NULL;
	if (opt.json)
		report_json(stdout, &rp);
	else
		report_text(stdout, &rp);
	fflush(stdout);
	free(rp.maps.ents);
	if (opt.stop) {
		stop_seen = true;
		exiting = 1;
	}
	return 0;
}

/* ------------------------------------------------------------------------
 * Setup
 */

static void on_signal(int sig)
{
	exiting = 1;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: vigil-bpf-monitor [--duration S] [--json] [--reactor log|stop] [--binary PATH]\n"
		   "                         [--check] [--unlink-spec] SPEC [-- COMMAND ARGS...]\n"
		   "Runs a compiled vigil monitor (written by `vigil monitor`) as an eBPF program.\n");
}

static void parse_args(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--")) {
			i++;
			break;
		} else if (!strcmp(a, "--json")) {
			opt.json = true;
		} else if (!strcmp(a, "--check")) {
			opt.check = true;
		} else if (!strcmp(a, "--unlink-spec")) {
			opt.unlink_spec = true;
		} else if (!strcmp(a, "--duration") && i + 1 < argc) {
			char *end;

			opt.duration = strtod(argv[++i], &end);
			if (*end || end == argv[i] || opt.duration < 0)
				lu_die("--duration takes a number of seconds, not `%s`", argv[i]);
		} else if (!strcmp(a, "--reactor") && i + 1 < argc) {
			i++;
			if (!strcmp(argv[i], "log"))
				opt.stop = false;
			else if (!strcmp(argv[i], "stop"))
				opt.stop = true;
			else
				lu_die("unknown reactor `%s` (log or stop)", argv[i]);
		} else if (!strcmp(a, "--binary") && i + 1 < argc) {
			opt.binary = argv[++i];
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			exit(0);
		} else if (a[0] == '-' && a[1]) {
			usage(stderr);
			lu_die("unknown or incomplete option `%s`", a);
		} else if (!opt.spec) {
			opt.spec = a;
		} else {
			usage(stderr);
			lu_die("unexpected argument `%s` (a command goes after `--`)", a);
		}
	}
	if (i < argc)
		opt.command = &argv[i];
	if (!opt.spec) {
		usage(stderr);
		lu_die("no monitor spec given");
	}
}

/* Every tracepoint the spec needs must exist in the kernel's BTF. */
static void check_tracepoints(void)
{
	struct btf *btf;
	int missing = 0, ntp = 0;
	char loc[PATH_MAX + 32];

	for (int i = 0; i < spec.nrules; i++)
		ntp += spec.rules[i].kind == SRC_TP;
	if (!ntp)
		return;
	btf = btf__load_vmlinux_btf();
	if (!btf)
		lu_die("cannot read the kernel's BTF (/sys/kernel/btf/vmlinux): %s; "
		       "vigil monitor needs a kernel built with CONFIG_DEBUG_INFO_BTF",
		       strerror(errno));
	for (int i = 0; i < spec.nrules; i++) {
		const struct spec_rule *r = &spec.rules[i];
		char name[128];

		if (r->kind != SRC_TP)
			continue;
		snprintf(name, sizeof(name), "btf_trace_%s", r->tp_name);
		if (btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF) >= 0)
			continue;
		fprintf(stderr, "%s: error: this kernel has no tracepoint %s (needed by event %s, %s)\n",
			lu_prog_name, r->tp_name, event_name(&spec, r->event), where(r, loc, sizeof(loc)));
		missing++;
	}
	btf__free(btf);
	if (missing)
		exit(EXIT_ERROR);
}

/* Resolve the file each uprobe goes into. */
static void resolve_uprobes(void)
{
	char loc[PATH_MAX + 32];

	for (int i = 0; i < spec.nuprobes; i++) {
		struct uprobe_src *u = &spec.uprobes[i];
		const struct spec_rule *r = &spec.rules[u->first_rule];
		struct elf_info *info;

		if (u->lib) {
			u->path = lu_find_library(u->lib);
			if (!u->path)
				lu_die("cannot find library %s for %s (%s)", u->lib, r->source_text,
				       where(r, loc, sizeof(loc)));
		} else {
			if (!binary_path)
				lu_die("%s needs the binary it is in: give --binary PATH, or a command after -- (%s)",
				       r->source_text, where(r, loc, sizeof(loc)));
			u->path = binary_path;
		}
		info = elf_load(u->path);
		if (!info || !info->ok)
			lu_die("cannot read %s as an ELF file (for %s, %s)", u->path, r->source_text,
			       where(r, loc, sizeof(loc)));
		if (!elf_find_func(info, u->func))
			lu_die("function %s not found in %s (needed by %s, %s)", u->func, u->path,
			       r->source_text, where(r, loc, sizeof(loc)));
	}
}

static struct bpf_program *find_prog(const char *name)
{
	return bpf_object__find_program_by_name(skel->obj, name);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* What the binding uses: which tracepoints, and whether uprobes or
 * uretprobes. */
struct usage {
	bool tp[VIGIL_NR_TRACEPOINTS];
	bool any_call, any_return;
};

/* The attached programs, and their names for the reports. */
struct attachments {
	struct bpf_link *links[VIGIL_NR_TRACEPOINTS + 2 * VIGIL_MAX_UPROBES];
	int n;
	char names[4096];
};

static void attached_name(struct attachments *a, const char *fmt, const char *x, const char *y)
{
	size_t used = strlen(a->names);

	snprintf(a->names + used, sizeof(a->names) - used, "%s", a->names[0] ? " " : "");
	used = strlen(a->names);
	snprintf(a->names + used, sizeof(a->names) - used, fmt, x, y);
}

static struct usage used_sources(void)
{
	struct usage u = { 0 };

	for (int i = 0; i < spec.nrules; i++) {
		const struct spec_rule *r = &spec.rules[i];

		if (r->kind == SRC_TP)
			u.tp[r->tp] = true;
		else if (r->kind == SRC_CALL)
			u.any_call = true;
		else
			u.any_return = true;
	}
	return u;
}

/* --check: what would be monitored, without loading anything. */
static void print_check(const struct usage *u)
{
	printf("%s: ok: %d states, %d events, %d rules, scope %s (model %s, binding %s)\n", spec.name,
	       spec.nstates, spec.nevents, spec.nrules, scope_names[spec.scope], spec.model, spec.binding);
	for (int t = 0; t < VIGIL_NR_TRACEPOINTS; t++)
		if (u->tp[t])
			printf("  tracepoint %s: present\n", vigil_tracepoints[t].name);
	for (int i = 0; i < spec.nuprobes; i++)
		printf("  %s %s in %s\n", spec.uprobes[i].kind == SRC_CALL ? "uprobe" : "uretprobe",
		       spec.uprobes[i].func, spec.uprobes[i].path);
}

/* The file of the program uprobes attach to: --binary, else the command. */
static void find_binary(void)
{
	if (opt.binary) {
		binary_path = lu_find_in_path(opt.binary);
		if (!binary_path)
			lu_die("--binary %s: no such file", opt.binary);
	} else if (opt.command && spec.nuprobes) {
		/* A command given as a path is taken as it is, even when it is not
		 * a regular file: resolve_uprobes then says it is not ELF. */
		binary_path = strchr(opt.command[0], '/') ? realpath(opt.command[0], NULL)
							  : lu_find_in_path(opt.command[0]);
		if (!binary_path)
			lu_die("cannot find the command %s", opt.command[0]);
	}
}

/* Open the skeleton, size its maps, load only the programs the binding needs. */
static void open_and_load(const struct usage *u, int ncpus)
{
	const char *debug = getenv("VIGIL_BPF_DEBUG");
	int err;

	lu_libbpf_log_init(debug && *debug && strcmp(debug, "0"));
	skel = monitor_bpf__open();
	if (!skel) {
		lu_libbpf_log_print();
		lu_die("cannot open the BPF object: %s", strerror(errno));
	}
	skel->rodata->vigil_nevents = spec.nevents;
	skel->rodata->vigil_scope = spec.scope;
	skel->rodata->vigil_has_start_rules = spec.has_start_rules;
	skel->rodata->vigil_reactor_stop = opt.stop;
	skel->rodata->vigil_ncpus = ncpus;
	bpf_map__set_max_entries(skel->maps.vigil_transitions, spec.nstates * spec.nevents);
	bpf_map__set_max_entries(skel->maps.vigil_finals, spec.nstates);
	if (spec.scope == VIGIL_SCOPE_TASK || spec.scope == VIGIL_SCOPE_OBJECT)
		bpf_map__set_max_entries(skel->maps.vigil_inst_state, spec.instances);
	if (!u->any_return)
		bpf_map__set_max_entries(skel->maps.vigil_saved_args, 1);
	for (int t = 0; t < VIGIL_NR_TRACEPOINTS; t++) {
		char name[128];
		struct bpf_program *p;

		snprintf(name, sizeof(name), "tp_%s", vigil_tracepoints[t].name);
		p = find_prog(name);
		if (!p)
			lu_die("internal error: no BPF program %s", name);
		bpf_program__set_autoload(p, u->tp[t]);
	}
	bpf_program__set_autoload(skel->progs.uprobe_call, u->any_call || u->any_return);
	bpf_program__set_autoload(skel->progs.uprobe_return, u->any_return);
	err = monitor_bpf__load(skel);
	if (err) {
		lu_libbpf_log_print();
		lu_die("cannot load the BPF monitor: %s", strerror(-err));
	}
}

/* The model: final states and the transition table. */
static void fill_model(void)
{
	for (int st = 0; st < spec.nstates; st++) {
		__u32 k = st;
		__u8 fin = spec.final[st];

		if (bpf_map__update_elem(skel->maps.vigil_finals, &k, sizeof(k), &fin, sizeof(fin), BPF_ANY))
			lu_die("cannot fill the final-state map: %s", strerror(errno));
		for (int e = 0; e < spec.nevents; e++) {
			__u32 idx = st * spec.nevents + e;
			__u16 next = spec.table[idx] < 0 ? VIGIL_INVALID : spec.table[idx];

			if (bpf_map__update_elem(skel->maps.vigil_transitions, &idx, sizeof(idx), &next, sizeof(next),
						 BPF_ANY))
				lu_die("cannot fill the transition map: %s", strerror(errno));
		}
	}
}

/* The rules, grouped by source slot. */
static void fill_rules(void)
{
	for (int slot = 0; slot < VIGIL_NR_SOURCES; slot++) {
		struct vigil_rules rs;
		__u32 k = slot;

		memset(&rs, 0, sizeof(rs));
		for (int i = 0; i < spec.nrules; i++) {
			const struct spec_rule *r = &spec.rules[i];
			struct vigil_rule *br;

			if (r->slot != slot)
				continue;
			br = &rs.rule[rs.n++];
			br->event = r->event < 0 ? VIGIL_EV_FORGET : r->event;
			br->mode = r->mode;
			br->key = r->key < 0 ? VIGIL_KEY_NONE : r->key;
			br->ncond = r->ncond;
			br->id = i;
			for (int c = 0; c < r->ncond; c++) {
				br->cond[c].field = r->cond[c].field;
				br->cond[c].op = r->cond[c].op;
				br->cond[c].value = r->cond[c].value;
			}
		}
		if (!rs.n)
			continue;
		if (bpf_map__update_elem(skel->maps.vigil_rules, &k, sizeof(k), &rs, sizeof(rs), BPF_ANY))
			lu_die("cannot fill the rule map: %s", strerror(errno));
	}
}

static void attach_tracepoints(const struct usage *u, struct attachments *a)
{
	for (int t = 0; t < VIGIL_NR_TRACEPOINTS; t++) {
		char name[128];
		struct bpf_link *l;

		if (!u->tp[t])
			continue;
		snprintf(name, sizeof(name), "tp_%s", vigil_tracepoints[t].name);
		l = bpf_program__attach(find_prog(name));
		if (!l) {
			int err = -errno;

			lu_libbpf_log_print();
			lu_die("cannot attach to tracepoint %s: %s", vigil_tracepoints[t].name, strerror(-err));
		}
		a->links[a->n++] = l;
		attached_name(a, "%s%s", vigil_tracepoints[t].name, "");
	}
}

/* One uprobe program on `u`; a failure ends the monitor with the rule's line. */
static void attach_one_uprobe(struct attachments *a, const struct uprobe_src *u, struct bpf_program *prog,
			      bool retprobe, unsigned cookie)
{
	LIBBPF_OPTS(bpf_uprobe_opts, o, .func_name = u->func, .retprobe = retprobe, .bpf_cookie = cookie);
	struct bpf_link *l = bpf_program__attach_uprobe_opts(prog, child > 0 ? child : -1, u->path, 0, &o);
	char loc[PATH_MAX + 32];

	if (!l) {
		int err = -errno;

		lu_libbpf_log_print();
		lu_die("cannot attach %s to %s in %s: %s (%s)",
		       u->kind == SRC_CALL ? "a uprobe" : "a uretprobe", u->func, u->path, strerror(-err),
		       where(&spec.rules[u->first_rule], loc, sizeof(loc)));
	}
	a->links[a->n++] = l;
}

/* call:F is a uprobe; return:F a uprobe that saves the arguments and a
 * uretprobe that reads them. */
static void attach_uprobes(struct attachments *a)
{
	for (int i = 0; i < spec.nuprobes; i++) {
		const struct uprobe_src *u = &spec.uprobes[i];

		if (u->kind == SRC_RETURN) {
			attach_one_uprobe(a, u, skel->progs.uprobe_call, false, SAVE_ARGS | (unsigned)u->slot);
			attach_one_uprobe(a, u, skel->progs.uprobe_return, true, (unsigned)u->slot);
		} else {
			attach_one_uprobe(a, u, skel->progs.uprobe_call, false, (unsigned)u->slot);
		}
		attached_name(a, "%s:%s", u->kind == SRC_CALL ? "uprobe" : "uretprobe", u->func);
	}
}

static void announce(const struct attachments *a)
{
	fprintf(stderr, "vigil monitor: %s (scope %s): attached %s", spec.name, scope_names[spec.scope],
		a->names);
	if (opt.duration > 0)
		fprintf(stderr, "; for %g s", opt.duration);
	if (opt.command)
		fprintf(stderr, "; running %s", opt.command[0]);
	else if (opt.duration <= 0)
		fprintf(stderr, "; Ctrl-C to stop");
	fprintf(stderr, "\n");
}

/* Reports until the duration is over, the command exits, a signal or the
 * stop reactor; then the command is ended and reaped.  Returns the
 * seconds monitored; *child_status the command's wait status, or -1. */
static double poll_until_done(struct ring_buffer *rb, int *child_status)
{
	double t0 = now_s(), elapsed;

	lu_child_release(&child_gate);
	while (!exiting) {
		int err = ring_buffer__poll(rb, 100);

		if (err < 0 && err != -EINTR) {
			fprintf(stderr, "%s: error: reading the ring buffer: %s\n", lu_prog_name, strerror(-err));
			break;
		}
		if (opt.duration > 0 && now_s() - t0 >= opt.duration)
			break;
		if (child > 0) {
			int st;

			if (waitpid(child, &st, WNOHANG) == child) {
				*child_status = st;
				child = -1;
				break;
			}
		}
	}
	elapsed = now_s() - t0;
	if (!(opt.stop && stop_seen))
		ring_buffer__consume(rb);
	/* The command: killed when the stop reactor ended monitoring or on a
	 * signal, and reaped. */
	if (child > 0) {
		kill(child, opt.stop && stop_seen ? SIGKILL : SIGTERM);
		waitpid(child, child_status, 0);
	}
	return elapsed;
}

/* The per-cpu counters, summed. */
static void read_counters(int ncpus, unsigned long long cnt[VIGIL_NR_COUNTERS])
{
	__u64 *vals = lu_xcalloc(ncpus, sizeof(__u64));

	for (__u32 c = 0; c < VIGIL_NR_COUNTERS; c++) {
		cnt[c] = 0;
		if (bpf_map__lookup_elem(skel->maps.vigil_counters, &c, sizeof(c), vals, ncpus * sizeof(__u64), 0))
			continue;
		for (int i = 0; i < ncpus; i++)
			cnt[c] += vals[i];
	}
	free(vals);
}

static void print_summary_json(const unsigned long long *cnt, double elapsed, const char *attached,
			       int child_status)
{
	printf("{\"type\":\"summary\",\"monitor\":");
	json_str(stdout, spec.name);
	printf(",\"events_seen\":%llu,\"events_processed\":%llu,\"violations\":%llu,\"reported\":%llu,"
	       "\"drops\":%llu,\"instances_started\":%llu,\"instance_failures\":%llu,"
	       "\"duration_s\":%.3f,\"events_per_s\":%.0f,\"reactor\":\"%s\",\"attached\":[",
	       cnt[VIGIL_CNT_SEEN], cnt[VIGIL_CNT_PROCESSED], cnt[VIGIL_CNT_VIOLATIONS], nreports,
	       cnt[VIGIL_CNT_DROPS], cnt[VIGIL_CNT_STARTS], cnt[VIGIL_CNT_NOINST], elapsed,
	       elapsed > 0 ? cnt[VIGIL_CNT_SEEN] / elapsed : 0.0, opt.stop ? "stop" : "log");
	char *save, *tok, *copy = lu_xstrdup(attached);
	bool first = true;

	for (tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		printf("%s", first ? "" : ",");
		json_str(stdout, tok);
		first = false;
	}
	free(copy);
	printf("]");
	if (child_status >= 0)
		printf(",\"command_status\":%d", lu_exit_status(child_status));
	printf("}\n");
}

static void print_summary_text(const unsigned long long *cnt, double elapsed, const char *attached,
			       int child_status)
{
	unsigned long long violations = cnt[VIGIL_CNT_VIOLATIONS];

	printf("vigil monitor: %s: %llu events seen, %llu processed, %llu violation%s, %llu dropped, "
	       "in %.2f s (%.0f events/s)\n",
	       spec.name, cnt[VIGIL_CNT_SEEN], cnt[VIGIL_CNT_PROCESSED], violations,
	       violations == 1 ? "" : "s", cnt[VIGIL_CNT_DROPS], elapsed,
	       elapsed > 0 ? cnt[VIGIL_CNT_SEEN] / elapsed : 0.0);
	printf("  attached: %s\n", attached);
	if (opt.stop && stop_seen)
		printf("  stopped at the first violation (--reactor stop)\n");
	if (child_status >= 0)
		printf("  command %s exited with status %d\n", opt.command[0], lu_exit_status(child_status));
}

int main(int argc, char **argv)
{
	static struct attachments att;
	struct ring_buffer *rb;
	unsigned long long cnt[VIGIL_NR_COUNTERS];
	int ncpus, child_status = -1;
	double elapsed;

	lu_prog_name = "vigil monitor";
	parse_args(argc, argv);
	parse_spec(&spec, opt.spec);
	if (opt.unlink_spec)
		unlink(opt.spec);
	find_binary();
	check_tracepoints();
	resolve_rules(&spec);
	resolve_uprobes();
	struct usage used = used_sources();

	if (opt.check) {
		print_check(&used);
		return EXIT_OK;
	}
	if (geteuid() != 0)
		lu_die("vigil monitor loads eBPF programs and needs root (CAP_BPF and CAP_PERFMON); "
		       "run it with sudo");
	ncpus = libbpf_num_possible_cpus();
	if (ncpus <= 0)
		lu_die("cannot count the possible cpus");
	open_and_load(&used, ncpus);
	fill_model();
	fill_rules();
	rb = ring_buffer__new(bpf_map__fd(skel->maps.vigil_violations), handle_violation, NULL, NULL);
	if (!rb)
		lu_die("cannot open the ring buffer: %s", strerror(errno));
	/* Standard output stays JSON Lines: the command writes to stderr. */
	if (opt.command)
		child = lu_child_start_out(opt.command, &child_gate, opt.json ? STDERR_FILENO : -1);
	attach_tracepoints(&used, &att);
	attach_uprobes(&att);
	/* After loading: the monitor's programs are in kallsyms too. */
	load_kallsyms();
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	announce(&att);
	elapsed = poll_until_done(rb, &child_status);
	read_counters(ncpus, cnt);
	for (int i = 0; i < att.n; i++)
		bpf_link__destroy(att.links[i]);
	ring_buffer__free(rb);
	if (opt.json)
		print_summary_json(cnt, elapsed, att.names, child_status);
	else
		print_summary_text(cnt, elapsed, att.names, child_status);
	fflush(stdout);
	monitor_bpf__destroy(skel);
	return cnt[VIGIL_CNT_VIOLATIONS] ? EXIT_VIOLATIONS : EXIT_OK;
}
