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
 * ELF symbols (finding files: loader_util.c)
 */

struct elf_sym {
	uint64_t addr, size;
	char *name;
};

struct elf_seg {
	uint64_t offset, vaddr, filesz;
};

struct elf_info {
	char *path;
	bool ok;
	int nsyms;
	struct elf_sym *syms;
	int nsegs;
	struct elf_seg segs[16];
};

static int sym_cmp(const void *a, const void *b)
{
	const struct elf_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

#define MAX_ELF_CACHE 32
static struct elf_info elf_cache[MAX_ELF_CACHE];
static int elf_ncache;

struct elf_syms {
	struct elf_info *info;
	int cap;
};

/* lu_elf_functions' callback: a named STT_FUNC symbol into the table. */
static bool add_function(void *ctx, const char *name, const GElf_Sym *sym)
{
	struct elf_syms *t = ctx;
	struct elf_info *info = t->info;

	if (GELF_ST_TYPE(sym->st_info) != STT_FUNC || !*name)
		return false;
	if (info->nsyms == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 256;
		info->syms = lu_xrealloc(info->syms, t->cap * sizeof(*info->syms));
	}
	info->syms[info->nsyms++] = (struct elf_sym){ sym->st_value, sym->st_size, lu_xstrdup(name) };
	return false;
}

/* The function symbols (.symtab and .dynsym) and loadable segments of an
 * ELF file, cached.  A file libelf opens that is not ELF is ok, with none. */
static struct elf_info *elf_load(const char *path)
{
	struct elf_info *info;
	struct elf_syms t;
	Elf *e;
	size_t nph;
	int fd;

	for (int i = 0; i < elf_ncache; i++)
		if (!strcmp(elf_cache[i].path, path))
			return &elf_cache[i];
	if (elf_ncache == MAX_ELF_CACHE)
		return NULL;
	info = &elf_cache[elf_ncache++];
	memset(info, 0, sizeof(*info));
	info->path = lu_xstrdup(path);
	e = lu_elf_begin(path, &fd);
	if (!e)
		return info;
	if (elf_getphdrnum(e, &nph) == 0) {
		for (size_t i = 0; i < nph && info->nsegs < 16; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD)
				info->segs[info->nsegs++] =
					(struct elf_seg){ ph.p_offset, ph.p_vaddr, ph.p_filesz };
		}
	}
	t = (struct elf_syms){ info, 0 };
	lu_elf_functions(e, add_function, &t);
	elf_end(e);
	close(fd);
	qsort(info->syms, info->nsyms, sizeof(*info->syms), sym_cmp);
	info->ok = true;
	return info;
}

static const struct elf_sym *elf_find_func(struct elf_info *info, const char *name)
{
	for (int i = 0; info && i < info->nsyms; i++)
		if (!strcmp(info->syms[i].name, name))
			return &info->syms[i];
	return NULL;
}

/* The function containing (or the nearest below) a link-time address. */
static const struct elf_sym *elf_lookup(struct elf_info *info, uint64_t vaddr)
{
	int lo = 0, hi = info ? info->nsyms - 1 : -1, best = -1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (info->syms[mid].addr <= vaddr) {
			best = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	if (best < 0)
		return NULL;
	/* Nearest-symbol lookup; reject far-away matches past a sized symbol. */
	if (info->syms[best].size && vaddr >= info->syms[best].addr + info->syms[best].size + 4096)
		return NULL;
	return &info->syms[best];
}

static bool elf_off_to_vaddr(struct elf_info *info, uint64_t off, uint64_t *vaddr)
{
	for (int i = 0; i < info->nsegs; i++) {
		struct elf_seg *sg = &info->segs[i];

		if (off >= sg->offset && off < sg->offset + sg->filesz) {
			*vaddr = off - sg->offset + sg->vaddr;
			return true;
		}
	}
	return false;
}

static bool elf_has_vaddr(struct elf_info *info, uint64_t vaddr)
{
	for (int i = 0; i < info->nsegs; i++)
		if (vaddr >= info->segs[i].vaddr && vaddr < info->segs[i].vaddr + info->segs[i].filesz)
			return true;
	return false;
}

/* ------------------------------------------------------------------------
 * Kernel symbols (/proc/kallsyms)
 */

struct ksym {
	uint64_t addr;
	char *name;
};

static struct ksym *ksyms;
static int nksyms;

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void load_kallsyms(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512];
	int cap = 0;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long addr;
		char type, name[256], mod[128] = "";
		int n = sscanf(line, "%llx %c %255s %127s", &addr, &type, name, mod);

		if (n < 3 || !addr || (type != 't' && type != 'T' && type != 'w' && type != 'W'))
			continue;
		if (nksyms == cap) {
			cap = cap ? 2 * cap : 65536;
			ksyms = lu_xrealloc(ksyms, cap * sizeof(*ksyms));
		}
		if (n == 4 && mod[0] == '[') {
			char buf[400];

			snprintf(buf, sizeof(buf), "%s %s", name, mod);
			ksyms[nksyms++] = (struct ksym){ addr, lu_xstrdup(buf) };
		} else {
			ksyms[nksyms++] = (struct ksym){ addr, lu_xstrdup(name) };
		}
	}
	fclose(f);
	qsort(ksyms, nksyms, sizeof(*ksyms), ksym_cmp);
}

#define SYMLEN_K 512

static void ksym_name(uint64_t addr, char *buf, size_t len)
{
	int lo = 0, hi = nksyms - 1, best = -1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (ksyms[mid].addr <= addr) {
			best = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	/* Nothing near: not a symbol we know (kallsyms has no sizes). */
	if (best < 0 || addr - ksyms[best].addr > 0x100000) {
		snprintf(buf, len, "?");
		return;
	}
	const char *name = ksyms[best].name, *sp = strchr(name, ' ');

	if (sp)
		snprintf(buf, len, "%.*s+0x%llx%s", (int)(sp - name), name,
			 (unsigned long long)(addr - ksyms[best].addr), sp);
	else
		snprintf(buf, len, "%s+0x%llx", name, (unsigned long long)(addr - ksyms[best].addr));
}

/* The monitor's own frames at the top of a kernel stack: the BPF program
 * and the tracepoint glue that called it. */
static bool is_monitor_frame(uint64_t addr)
{
	char buf[SYMLEN_K];

	ksym_name(addr, buf, sizeof(buf));
	return !strncmp(buf, "bpf_prog_", 9) || !strncmp(buf, "bpf_trace_run", 13) ||
	       !strncmp(buf, "__bpf_trace_", 12) || !strncmp(buf, "__traceiter_", 12) ||
	       !strncmp(buf, "bpf_trampoline_", 15);
}

/* ------------------------------------------------------------------------
 * User stacks
 */

struct map_ent {
	uint64_t start, end, offset;
	char path[PATH_MAX];
};

struct proc_maps {
	uint32_t tgid;
	int n;
	struct map_ent *ents;
};

static void read_maps(uint32_t tgid, struct proc_maps *m)
{
	char fn[64], line[PATH_MAX + 128];
	FILE *f;
	int cap = 0;

	m->tgid = tgid;
	m->n = 0;
	m->ents = NULL;
	snprintf(fn, sizeof(fn), "/proc/%u/maps", tgid);
	f = fopen(fn, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		char perms[8], path[PATH_MAX] = "";
		unsigned long long inode;
		char dev[32];

		if (sscanf(line, "%llx-%llx %7s %llx %31s %llu %4095[^\n]", &s, &e, perms, &off, dev,
			   &inode, path) < 6)
			continue;
		if (path[0] != '/')
			continue;
		if (m->n == cap) {
			cap = cap ? 2 * cap : 64;
			m->ents = lu_xrealloc(m->ents, cap * sizeof(*m->ents));
		}
		struct map_ent *me = &m->ents[m->n++];

		me->start = s;
		me->end = e;
		me->offset = off;
		snprintf(me->path, sizeof(me->path), "%s", path);
	}
	fclose(f);
}

/* Where a user address is, through the process's maps when it still runs,
 * else through `fallback` loaded at `bias`: its module file, the file
 * offset (maps only, else -1) and, when the ELF says, the virtual address
 * (what symbol lookup and llvm-symbolizer want).  Returns whether a module
 * was found; *has_vaddr says whether *vaddr is known. */
static bool ulocate(const struct proc_maps *m, uint64_t addr, struct elf_info *fallback,
		    int64_t bias, bool have_bias, const char **path, uint64_t *fileoff,
		    uint64_t *vaddr, bool *has_vaddr)
{
	for (int i = 0; i < m->n; i++) {
		const struct map_ent *me = &m->ents[i];
		struct elf_info *info;

		if (addr < me->start || addr >= me->end)
			continue;
		*path = me->path;
		*fileoff = addr - me->start + me->offset;
		info = elf_load(me->path);
		*has_vaddr = info && info->ok && elf_off_to_vaddr(info, *fileoff, vaddr);
		return true;
	}
	if (fallback && have_bias && elf_has_vaddr(fallback, addr - bias)) {
		*path = fallback->path;
		*fileoff = (uint64_t)-1;
		*vaddr = addr - bias;
		*has_vaddr = true;
		return true;
	}
	return false;
}

/* Symbolise one user address from the module's ELF symbols. */
static void usym_name(const struct proc_maps *m, uint64_t addr, struct elf_info *fallback,
		      int64_t bias, bool have_bias, char *buf, size_t len)
{
	const char *path;
	uint64_t fileoff, vaddr;
	bool has_vaddr;

	if (!ulocate(m, addr, fallback, bias, have_bias, &path, &fileoff, &vaddr, &has_vaddr)) {
		snprintf(buf, len, "?");
		return;
	}
	struct elf_info *info = elf_load(path);
	const struct elf_sym *sym = has_vaddr && info && info->ok ? elf_lookup(info, vaddr) : NULL;
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	if (sym)
		snprintf(buf, len, "%s+0x%llx (%s)", sym->name,
			 (unsigned long long)(vaddr - sym->addr), base);
	else if (fileoff != (uint64_t)-1)
		snprintf(buf, len, "? (%s+0x%llx)", base, (unsigned long long)fileoff);
	else
		snprintf(buf, len, "?");
}

#define ULINES_INLINE 4

/* Source lines of the user frames, by llvm-symbolizer (runtime/symbolizer.c,
 * shared with libvigil's reports): frame i gets counts[i] symbols at
 * syms[i * ULINES_INLINE], innermost inlined first; 0 when unknown or when
 * VIGIL_SYMBOLIZE=0.  Frames after the first are return addresses: the
 * call is the byte before. */
static void ulines(const struct proc_maps *m, const __u64 *ustack, int nu,
		   struct elf_info *fallback, int64_t bias, bool have_bias,
		   struct vg_symbol *syms, int *counts)
{
	const char *mods[VIGIL_STACK_DEPTH + 1];
	uint64_t addrs[VIGIL_STACK_DEPTH + 1];
	int idx[VIGIL_STACK_DEPTH + 1], q = 0;
	const char *off = getenv("VIGIL_SYMBOLIZE");

	for (int i = 0; i < nu; i++) {
		counts[i] = 0;
		if (off && !strcmp(off, "0"))
			continue;
		uint64_t fileoff;
		bool has_vaddr;

		if (ulocate(m, ustack[i] - (i > 0), fallback, bias, have_bias, &mods[q], &fileoff,
			    &addrs[q], &has_vaddr) && has_vaddr)
			idx[q++] = i;
	}
	/* A monitor may report thousands of violations from a few places:
	 * answers are cached per (module, address), so the symbolizer runs
	 * only for addresses not seen before. */
	static struct ucache {
		char path[PATH_MAX];
		uint64_t vaddr;
		int count;
		struct vg_symbol syms[ULINES_INLINE];
	} *cache;
	const int ncache = 512;
	int miss = 0, missing[VIGIL_STACK_DEPTH + 1];
	const char *mmods[VIGIL_STACK_DEPTH + 1];
	uint64_t maddrs[VIGIL_STACK_DEPTH + 1];

	if (!cache && !(cache = calloc(ncache, sizeof(*cache))))
		return;
	for (int k = 0; k < q; k++) {
		struct ucache *e = &cache[(addrs[k] ^ (addrs[k] >> 12)) % ncache];

		if (e->vaddr == addrs[k] && !strcmp(e->path, mods[k])) {
			memcpy(&syms[idx[k] * ULINES_INLINE], e->syms, sizeof(e->syms));
			counts[idx[k]] = e->count;
		} else {
			mmods[miss] = mods[k];
			maddrs[miss] = addrs[k];
			missing[miss++] = k;
		}
	}
	if (!miss)
		return;
	struct vg_symbol tmp[(VIGIL_STACK_DEPTH + 1) * ULINES_INLINE];
	int c[VIGIL_STACK_DEPTH + 1];

	if (vg_symbolizer_run(mmods, maddrs, miss, ULINES_INLINE, tmp, c) < 0)
		return;
	for (int m = 0; m < miss; m++) {
		int k = missing[m];
		struct ucache *e = &cache[(addrs[k] ^ (addrs[k] >> 12)) % ncache];

		memcpy(&syms[idx[k] * ULINES_INLINE], &tmp[m * ULINES_INLINE],
		       sizeof(*tmp) * ULINES_INLINE);
		counts[idx[k]] = c[m];
		snprintf(e->path, sizeof(e->path), "%s", mods[k]);
		e->vaddr = addrs[k];
		e->count = c[m];
		memcpy(e->syms, &tmp[m * ULINES_INLINE], sizeof(e->syms));
	}
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

static int handle_violation(void *ctx, void *data, size_t size)
{
	const struct vigil_violation *v = data;
	const struct spec_rule *r;
	char comm[17], loc[PATH_MAX + 32], sym[SYMLEN];
	int nk, nu;
	struct proc_maps maps = { 0 };
	struct elf_info *fallback = NULL;
	int64_t bias = 0;
	bool have_bias = false;
	FILE *out = stdout;

	if (size < sizeof(*v) || v->rule >= (unsigned)spec.nrules)
		return 0;
	if (opt.stop && stop_seen)
		return 0;
	r = &spec.rules[v->rule];
	nreports++;
	memcpy(comm, v->comm, 16);
	comm[16] = 0;
	nk = v->kstack_sz > 0 ? v->kstack_sz / 8 : 0;
	/* Kernel frames from where the tracepoint fired. */
	const __u64 *kstack = v->kstack;

	while (nk > 1 && is_monitor_frame(kstack[0])) {
		kstack++;
		nk--;
	}
	nu = v->ustack_sz > 0 ? v->ustack_sz / 8 : 0;
	/* The user frames: at a function's entry the immediate caller is
	 * missing from the frame-pointer walk; put it back. */
	__u64 ustack[VIGIL_STACK_DEPTH + 1];

	for (int i = 0, j = 0; i < nu; i++) {
		ustack[j++] = v->ustack[i];
		if (i == 0 && v->entry_ret && (nu < 2 || v->ustack[1] != v->entry_ret))
			ustack[j++] = v->entry_ret;
		if (i == nu - 1)
			nu = j;
	}
	if (nu) {
		struct uprobe_src *u = uprobe_of_slot(v->source);

		read_maps(v->tgid, &maps);
		/* Fallback when the process is gone: the probed function's load
		 * bias from the first frame of a call: probe (page-aligned). */
		if (u && u->kind == SRC_CALL && u->path && (fallback = elf_load(u->path))) {
			const struct elf_sym *fs = elf_find_func(fallback, u->func);

			if (fs) {
				bias = (int64_t)((v->ustack[0] - fs->addr) & ~0xfffULL);
				have_bias = true;
			}
		}
	}

	struct vg_symbol usyms[(VIGIL_STACK_DEPTH + 1) * ULINES_INLINE];
	int ucounts[VIGIL_STACK_DEPTH + 1];

	ulines(&maps, ustack, nu, fallback, bias, have_bias, usyms, ucounts);
	const unsigned st = v->state < (unsigned)spec.nstates ? v->state : 0;
	const char *state = spec.states[st];
	const char *event = event_name(&spec, v->event == VIGIL_EV_FORGET ? -1 : (int)v->event);
	const char *keyname = r->key >= 0 ? field_name(r, r->key) : NULL;

	if (opt.json) {
		bool first = true;

		fprintf(out, "{\"type\":\"violation\",\"monitor\":");
		json_str(out, spec.name);
		fprintf(out, ",\"kind\":\"%s\",\"state\":", v->kind == VIGIL_V_NOT_FINAL ? "not-final" : "event");
		json_str(out, state);
		fprintf(out, ",\"event\":");
		json_str(out, event);
		fprintf(out, ",\"allowed\":[");
		for (int e = 0; e < spec.nevents; e++)
			if (spec.table[st * spec.nevents + e] >= 0) {
				fprintf(out, "%s", first ? "" : ",");
				json_str(out, spec.events[e]);
				first = false;
			}
		fprintf(out, "],\"key\":");
		if (keyname) {
			fprintf(out, "{\"field\":");
			json_str(out, keyname);
			fprintf(out, ",\"value\":%lld}", (long long)v->key);
		} else {
			fprintf(out, "null");
		}
		fprintf(out, ",\"cpu\":%u,\"pid\":%u,\"tgid\":%u,\"comm\":", v->cpu, v->pid, v->tgid);
		json_str(out, comm);
		fprintf(out, ",\"time_ns\":%llu,\"source\":", (unsigned long long)v->ktime);
		json_str(out, r->source_text);
		fprintf(out, ",\"binding\":");
		json_str(out, where(r, loc, sizeof(loc)));
		fprintf(out, ",\"stack\":[");
		for (int i = 0; i < nk; i++) {
			ksym_name(kstack[i], sym, sizeof(sym));
			fprintf(out, "%s{\"addr\":\"0x%llx\",\"sym\":", i ? "," : "",
				(unsigned long long)kstack[i]);
			json_str(out, sym);
			fputc('}', out);
		}
		fprintf(out, "],\"user_stack\":[");
		for (int i = 0; i < nu; i++) {
			const struct vg_symbol *sy = &usyms[i * ULINES_INLINE];

			usym_name(&maps, ustack[i], fallback, bias, have_bias, sym, sizeof(sym));
			fprintf(out, "%s{\"addr\":\"0x%llx\",\"sym\":", i ? "," : "",
				(unsigned long long)ustack[i]);
			json_str(out, sym);
			if (ucounts[i]) {
				/* the function itself, then what was inlined into it */
				fputc(',', out);
				json_symbol(out, &sy[ucounts[i] - 1]);
				fprintf(out, ",\"inlined\":[");
				for (int k = 0; k + 1 < ucounts[i]; k++) {
					fprintf(out, "%s{", k ? "," : "");
					json_symbol(out, &sy[k]);
					fputc('}', out);
				}
				fputc(']', out);
			}
			fputc('}', out);
		}
		fprintf(out, "],\"render\":");
		snprintf(loc, sizeof(loc), "vigil render %s --highlight %s:%s", spec.model, state, event);
		json_str(out, loc);
		fprintf(out, "}\n");
	} else {
		if (v->kind == VIGIL_V_NOT_FINAL)
			fprintf(out, "vigil monitor: %s: violation: instance forgotten in state %s, which is not final\n",
				spec.name, state);
		else
			fprintf(out, "vigil monitor: %s: violation: event %s not allowed in state %s\n", spec.name,
				event, state);
		fprintf(out, "  allowed: ");
		bool any = false;

		for (int e = 0; e < spec.nevents; e++)
			if (spec.table[st * spec.nevents + e] >= 0) {
				fprintf(out, "%s%s", any ? ", " : "", spec.events[e]);
				any = true;
			}
		fprintf(out, "%s\n", any ? "" : "(none)");
		if (keyname && (!strncmp(keyname, "arg", 3) || !strcmp(keyname, "ret") ||
				!strcmp(keyname, "address") || !strcmp(keyname, "ip")))
			fprintf(out, "  key: %s=0x%llx (%s scope)\n", keyname, (unsigned long long)v->key,
				scope_names[spec.scope]);
		else if (keyname)
			fprintf(out, "  key: %s=%lld (%s scope)\n", keyname, (long long)v->key,
				scope_names[spec.scope]);
		fprintf(out, "  task: %s pid %u tgid %u, cpu %u, at %llu.%09llu\n", comm, v->pid, v->tgid,
			v->cpu, (unsigned long long)v->ktime / 1000000000ULL,
			(unsigned long long)v->ktime % 1000000000ULL);
		fprintf(out, "  rule: %s %s %s\n", where(r, loc, sizeof(loc)), event, r->source_text);
		if (nk) {
			fprintf(out, "  kernel stack:\n");
			for (int i = 0; i < nk; i++) {
				ksym_name(kstack[i], sym, sizeof(sym));
				fprintf(out, "    #%-2d 0x%016llx %s\n", i, (unsigned long long)kstack[i], sym);
			}
		}
		if (nu) {
			fprintf(out, "  user stack:\n");
			for (int i = 0; i < nu; i++) {
				const struct vg_symbol *sy = &usyms[i * ULINES_INLINE];

				usym_name(&maps, ustack[i], fallback, bias, have_bias, sym, sizeof(sym));
				fprintf(out, "    #%-2d 0x%016llx %s\n", i, (unsigned long long)ustack[i], sym);
				for (int k = 0; k < ucounts[i]; k++)
					if (sy[k].file[0])
						fprintf(out, "        %s:%u:%u in %s%s\n", sy[k].file, sy[k].line,
							sy[k].column, sy[k].function,
							k + 1 < ucounts[i] ? " (inlined)" : "");
			}
		}
		fprintf(out, "  render: vigil render %s --highlight %s:%s\n", spec.model, state, event);
	}
	fflush(out);
	free(maps.ents);
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

int main(int argc, char **argv)
{
	struct ring_buffer *rb = NULL;
	struct bpf_link *links[VIGIL_NR_TRACEPOINTS + 2 * VIGIL_MAX_UPROBES] = { 0 };
	int nlinks = 0, err, ncpus;
	bool used_tp[VIGIL_NR_TRACEPOINTS] = { 0 };
	bool any_call = false, any_return = false;
	char attached[4096] = "";
	double t0, elapsed;
	int child_status = -1;
	char loc[PATH_MAX + 32];
	const char *debug = getenv("VIGIL_BPF_DEBUG");

	lu_prog_name = "vigil monitor";
	parse_args(argc, argv);
	parse_spec(&spec, opt.spec);
	if (opt.unlink_spec)
		unlink(opt.spec);

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

	check_tracepoints();
	resolve_rules(&spec);
	resolve_uprobes();

	for (int i = 0; i < spec.nrules; i++) {
		const struct spec_rule *r = &spec.rules[i];

		if (r->kind == SRC_TP)
			used_tp[r->tp] = true;
		else if (r->kind == SRC_CALL)
			any_call = true;
		else
			any_return = true;
	}

	if (opt.check) {
		printf("%s: ok: %d states, %d events, %d rules, scope %s (model %s, binding %s)\n",
		       spec.name, spec.nstates, spec.nevents, spec.nrules, scope_names[spec.scope],
		       spec.model, spec.binding);
		for (int t = 0; t < VIGIL_NR_TRACEPOINTS; t++)
			if (used_tp[t])
				printf("  tracepoint %s: present\n", vigil_tracepoints[t].name);
		for (int i = 0; i < spec.nuprobes; i++)
			printf("  %s %s in %s\n", spec.uprobes[i].kind == SRC_CALL ? "uprobe" : "uretprobe",
			       spec.uprobes[i].func, spec.uprobes[i].path);
		return EXIT_OK;
	}

	if (geteuid() != 0)
		lu_die("vigil monitor loads eBPF programs and needs root (CAP_BPF and CAP_PERFMON); "
		       "run it with sudo");

	lu_libbpf_log_init(debug && *debug && strcmp(debug, "0"));

	skel = monitor_bpf__open();
	if (!skel) {
		lu_libbpf_log_print();
		lu_die("cannot open the BPF object: %s", strerror(errno));
	}
	ncpus = libbpf_num_possible_cpus();
	if (ncpus <= 0)
		lu_die("cannot count the possible cpus");
	skel->rodata->nevents = spec.nevents;
	skel->rodata->scope = spec.scope;
	skel->rodata->has_start_rules = spec.has_start_rules;
	skel->rodata->reactor_stop = opt.stop;
	skel->rodata->ncpus = ncpus;
	bpf_map__set_max_entries(skel->maps.transitions, spec.nstates * spec.nevents);
	bpf_map__set_max_entries(skel->maps.finals, spec.nstates);
	if (spec.scope == VIGIL_SCOPE_TASK || spec.scope == VIGIL_SCOPE_OBJECT)
		bpf_map__set_max_entries(skel->maps.inst_state, spec.instances);
	if (!any_return)
		bpf_map__set_max_entries(skel->maps.saved_args, 1);

	/* Only the programs this binding needs are loaded. */
	for (int t = 0; t < VIGIL_NR_TRACEPOINTS; t++) {
		char name[128];
		struct bpf_program *p;

		snprintf(name, sizeof(name), "tp_%s", vigil_tracepoints[t].name);
		p = find_prog(name);
		if (!p)
			lu_die("internal error: no BPF program %s", name);
		bpf_program__set_autoload(p, used_tp[t]);
	}
	bpf_program__set_autoload(skel->progs.uprobe_call, any_call || any_return);
	bpf_program__set_autoload(skel->progs.uprobe_return, any_return);

	err = monitor_bpf__load(skel);
	if (err) {
		lu_libbpf_log_print();
		lu_die("cannot load the BPF monitor: %s", strerror(-err));
	}

	/* The model and the rules. */
	for (int st = 0; st < spec.nstates; st++) {
		__u32 k = st;
		__u8 fin = spec.final[st];

		if (bpf_map__update_elem(skel->maps.finals, &k, sizeof(k), &fin, sizeof(fin), BPF_ANY))
			lu_die("cannot fill the final-state map: %s", strerror(errno));
		for (int e = 0; e < spec.nevents; e++) {
			__u32 idx = st * spec.nevents + e;
			__u16 next = spec.table[idx] < 0 ? VIGIL_INVALID : spec.table[idx];

			if (bpf_map__update_elem(skel->maps.transitions, &idx, sizeof(idx), &next, sizeof(next),
						 BPF_ANY))
				lu_die("cannot fill the transition map: %s", strerror(errno));
		}
	}
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
		if (bpf_map__update_elem(skel->maps.rules, &k, sizeof(k), &rs, sizeof(rs), BPF_ANY))
			lu_die("cannot fill the rule map: %s", strerror(errno));
	}

	rb = ring_buffer__new(bpf_map__fd(skel->maps.violations), handle_violation, NULL, NULL);
	if (!rb)
		lu_die("cannot open the ring buffer: %s", strerror(errno));

	/* Standard output stays JSON Lines: the command writes to stderr. */
	if (opt.command)
		child = lu_child_start_out(opt.command, &child_gate, opt.json ? STDERR_FILENO : -1);

	/* Attach. */
	for (int t = 0; t < VIGIL_NR_TRACEPOINTS; t++) {
		char name[128];
		struct bpf_link *l;

		if (!used_tp[t])
			continue;
		snprintf(name, sizeof(name), "tp_%s", vigil_tracepoints[t].name);
		l = bpf_program__attach(find_prog(name));
		if (!l) {
			err = -errno;
			lu_libbpf_log_print();
			lu_die("cannot attach to tracepoint %s: %s", vigil_tracepoints[t].name, strerror(-err));
		}
		links[nlinks++] = l;
		snprintf(attached + strlen(attached), sizeof(attached) - strlen(attached), "%s%s",
			 attached[0] ? " " : "", vigil_tracepoints[t].name);
	}
	for (int i = 0; i < spec.nuprobes; i++) {
		struct uprobe_src *u = &spec.uprobes[i];
		const struct spec_rule *r = &spec.rules[u->first_rule];
		pid_t pid = child > 0 ? child : -1;
		struct bpf_link *l;

		if (u->kind == SRC_RETURN) {
			LIBBPF_OPTS(bpf_uprobe_opts, so, .func_name = u->func, .retprobe = false,
				    .bpf_cookie = SAVE_ARGS | (unsigned)u->slot);
			l = bpf_program__attach_uprobe_opts(skel->progs.uprobe_call, pid, u->path, 0, &so);
			if (!l)
				goto uprobe_fail;
			links[nlinks++] = l;
		}
		{
			LIBBPF_OPTS(bpf_uprobe_opts, uo, .func_name = u->func,
				    .retprobe = u->kind == SRC_RETURN, .bpf_cookie = (unsigned)u->slot);
			l = bpf_program__attach_uprobe_opts(u->kind == SRC_RETURN ? skel->progs.uprobe_return
										  : skel->progs.uprobe_call,
							    pid, u->path, 0, &uo);
			if (!l)
				goto uprobe_fail;
			links[nlinks++] = l;
		}
		snprintf(attached + strlen(attached), sizeof(attached) - strlen(attached), "%s%s:%s",
			 attached[0] ? " " : "", u->kind == SRC_CALL ? "uprobe" : "uretprobe", u->func);
		continue;
uprobe_fail:
		err = -errno;
		lu_libbpf_log_print();
		lu_die("cannot attach %s to %s in %s: %s (%s)",
		       u->kind == SRC_CALL ? "a uprobe" : "a uretprobe", u->func, u->path, strerror(-err),
		       where(r, loc, sizeof(loc)));
	}

	/* After loading: the monitor's programs are in kallsyms too. */
	load_kallsyms();
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	fprintf(stderr, "vigil monitor: %s (scope %s): attached %s", spec.name, scope_names[spec.scope],
		attached);
	if (opt.duration > 0)
		fprintf(stderr, "; for %g s", opt.duration);
	if (opt.command)
		fprintf(stderr, "; running %s", opt.command[0]);
	else if (opt.duration <= 0)
		fprintf(stderr, "; Ctrl-C to stop");
	fprintf(stderr, "\n");

	t0 = now_s();
	lu_child_release(&child_gate);
	while (!exiting) {
		err = ring_buffer__poll(rb, 100);
		if (err < 0 && err != -EINTR) {
			fprintf(stderr, "%s: error: reading the ring buffer: %s\n", lu_prog_name, strerror(-err));
			break;
		}
		if (opt.duration > 0 && now_s() - t0 >= opt.duration)
			break;
		if (child > 0) {
			int st;

			if (waitpid(child, &st, WNOHANG) == child) {
				child_status = st;
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
		waitpid(child, &child_status, 0);
	}

	/* Summary. */
	unsigned long long cnt[VIGIL_NR_COUNTERS] = { 0 };
	__u64 *vals = lu_xcalloc(ncpus, sizeof(__u64));

	for (__u32 c = 0; c < VIGIL_NR_COUNTERS; c++) {
		if (bpf_map__lookup_elem(skel->maps.counters, &c, sizeof(c), vals, ncpus * sizeof(__u64), 0))
			continue;
		for (int i = 0; i < ncpus; i++)
			cnt[c] += vals[i];
	}
	free(vals);
	for (int i = 0; i < nlinks; i++)
		bpf_link__destroy(links[i]);
	ring_buffer__free(rb);

	unsigned long long violations = cnt[VIGIL_CNT_VIOLATIONS];

	if (opt.json) {
		printf("{\"type\":\"summary\",\"monitor\":");
		json_str(stdout, spec.name);
		printf(",\"events_seen\":%llu,\"events_processed\":%llu,\"violations\":%llu,\"reported\":%llu,"
		       "\"drops\":%llu,\"instances_started\":%llu,\"instance_failures\":%llu,"
		       "\"duration_s\":%.3f,\"events_per_s\":%.0f,\"reactor\":\"%s\",\"attached\":[",
		       cnt[VIGIL_CNT_SEEN], cnt[VIGIL_CNT_PROCESSED], violations, nreports,
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
	} else {
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
	fflush(stdout);
	monitor_bpf__destroy(skel);
	return violations ? EXIT_VIOLATIONS : EXIT_OK;
}
