// SPDX-License-Identifier: MIT OR Apache-2.0
/*
 * vigil-bpf-monitor: loads vigil's generic eBPF monitor (monitor.bpf.c) with
 * one compiled model (include/vigil/vk.h, written by `vigil monitor`; the
 * file is read by monitor_model.c), and reports violations until a
 * duration, a signal or the monitored command's exit.
 *
 *   vigil-bpf-monitor [--duration S] [--json] [--reactor log|stop]
 *                     [--binary PATH] [--check] [--print-model]
 *                     [--instances N] [--unlink-model] MODEL.vk [-- COMMAND ARGS...]
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
#include "monitor_model.h"
#include "monitor_conform.h"
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
 * Output
 */

struct options {
	double duration;
	bool json;
	bool stop;
	bool check;
	bool unlink_model;
	bool print_model;
	const char *conform; /* EVENTS: run the conformance events, attach nothing */
	unsigned instances;
	const char *binary;
	const char *model;
	char **command;
};

static struct options opt = { .instances = DEFAULT_INSTANCES };

static const char *verdict_name(unsigned kind)
{
	switch (kind) {
	case VK_V_EVENT: return "event";
	case VK_V_GUARD: return "guard";
	case VK_V_INVARIANT: return "invariant";
	case VK_V_NOT_FINAL: return "not-final";
	case VK_V_LTL: return "ltl";
	default: return "?";
	}
}
static struct monitor_model model;
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

static const char *where(const struct model_rule *r, char *buf, size_t len)
{
	return model_where(&model, r, buf, len);
}

static struct uprobe_src *uprobe_of_slot(int slot)
{
	for (int i = 0; i < model.nuprobes; i++)
		if (model.uprobes[i].slot == slot)
			return &model.uprobes[i];
	return NULL;
}

#define SYMLEN 512

/* One violation as the loader reports it: the record, its rule, and the
 * stacks resolved. */
struct report {
	const struct vigil_violation *v;
	const struct model_rule *r;
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
	char states[512]; /* LTL: the set of Büchi states, as S0|S1 */
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

/* One violation as a JSON line: the core every engine writes, in its order
 * (docs/integration.md, "Automaton violations (all engines)"; CORE_KEYS in
 * cli/trace/src/report.rs), then this engine's extras: stack, user_stack,
 * render. */
static void report_json(FILE *out, struct report *rp)
{
	const struct vigil_violation *v = rp->v;
	char loc[PATH_MAX + 32];
	bool first = true;
	/* An expired invariant: no rule fired and no task caused it (as offline). */
	bool timed = v->kind == VK_V_INVARIANT;

	fprintf(out, "{\"type\":\"violation\",\"engine\":\"bpf\",\"model\":");
	json_str(out, model.name);
	fprintf(out, ",\"kind\":\"%s\",\"state\":", verdict_name(v->kind));
	json_str(out, rp->state);
	fprintf(out, ",\"event\":");
	json_str(out, rp->event);
	fprintf(out, ",\"allowed\":[");
	for (int e = 0; e < model.nevents && v->kind != VK_V_LTL; e++)
		if (model_allows(&model, rp->st, e)) {
			fprintf(out, "%s", first ? "" : ",");
			json_str(out, model.events[e]);
			first = false;
		}
	fprintf(out, "],\"scope\":\"%s\",\"key\":", scope_names[model.scope]);
	if (rp->keyname) {
		fprintf(out, "{\"field\":");
		if (timed)
			fprintf(out, "null");
		else
			json_str(out, rp->keyname);
		fprintf(out, ",\"value\":%lld}", (long long)v->key);
	} else {
		fprintf(out, "null");
	}
	if (timed) {
		fprintf(out, ",\"rule\":null,\"source\":null,\"time_ns\":%llu,\"pid\":null,\"tgid\":null,"
			     "\"cpu\":null,\"comm\":null", (unsigned long long)v->ktime);
	} else {
		fprintf(out, ",\"rule\":");
		json_str(out, where(rp->r, loc, sizeof(loc)));
		fprintf(out, ",\"source\":");
		json_str(out, rp->r->source_text);
		fprintf(out, ",\"time_ns\":%llu,\"pid\":%u,\"tgid\":%u,\"cpu\":%u,\"comm\":",
			(unsigned long long)v->ktime, v->pid, v->tgid, v->cpu);
		json_str(out, rp->comm);
	}
	json_stacks(out, rp);
	fprintf(out, ",\"render\":");
	snprintf(loc, sizeof(loc), "vigil render %s --highlight %s:%s", model.model, rp->state, rp->event);
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

	if (v->kind == VK_V_NOT_FINAL)
		fprintf(out, "vigil monitor: %s: violation: instance forgotten in state %s, which is not final\n",
			model.name, rp->state);
	else if (v->kind == VK_V_LTL)
		fprintf(out, "vigil monitor: %s: violation: after %s no state of the automaton holds (was in %s)\n",
			model.name, rp->event, rp->state);
	else
		fprintf(out, "vigil monitor: %s: violation: event %s not allowed in state %s\n", model.name,
			rp->event, rp->state);
	if (v->kind != VK_V_LTL) {
		fprintf(out, "  allowed: ");
		for (int e = 0; e < model.nevents; e++)
			if (model_allows(&model, rp->st, e)) {
				fprintf(out, "%s%s", any ? ", " : "", model.events[e]);
				any = true;
			}
		fprintf(out, "%s\n", any ? "" : "(none)");
	}
	if (keyname && (!strncmp(keyname, "arg", 3) || !strcmp(keyname, "ret") ||
			!strcmp(keyname, "address") || !strcmp(keyname, "ip")))
		fprintf(out, "  key: %s=0x%llx (%s scope)\n", keyname, (unsigned long long)v->key,
			scope_names[model.scope]);
	else if (keyname)
		fprintf(out, "  key: %s=%lld (%s scope)\n", keyname, (long long)v->key, scope_names[model.scope]);
	fprintf(out, "  task: %s pid %u tgid %u, cpu %u, at %llu.%09llu\n", rp->comm, v->pid, v->tgid, v->cpu,
		(unsigned long long)v->ktime / 1000000000ULL, (unsigned long long)v->ktime % 1000000000ULL);
	fprintf(out, "  rule: %s %s %s\n", where(rp->r, loc, sizeof(loc)), rp->event, rp->r->source_text);
	text_stacks(out, rp);
	fprintf(out, "  render: vigil render %s --highlight %s:%s\n", model.model, rp->state, rp->event);
}

/* An LTL verdict's set of Büchi states, by name. */
static const char *state_set(unsigned set, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (int s = 0; s < model.nstates && s < 32 && used < len; s++)
		if (set & (1u << s))
			used += snprintf(buf + used, len - used, "%s%s", used ? "|" : "", model.states[s]);
	return buf;
}

/* The rule of an invariant a timer found expired: none; time passed. */
static struct model_rule timer_rule = { .source_text = "timer", .key = -1 };

/* The ring buffer's callback: one violation record. */
static int handle_violation(void *ctx, void *data, size_t size)
{
	static struct report rp;
	const struct vigil_violation *v = data;

	(void)ctx;
	if (size < sizeof(*v) || (v->rule >= (unsigned)model.nrules && v->rule != VIGIL_RULE_TIMER))
		return 0;
	if (opt.stop && stop_seen)
		return 0;
	memset(&rp, 0, sizeof(rp));
	rp.v = v;
	rp.r = v->rule == VIGIL_RULE_TIMER ? &timer_rule : &model.rules[v->rule];
	nreports++;
	memcpy(rp.comm, v->comm, 16);
	collect_stacks(&rp);
	rp.st = v->state < (unsigned)model.nstates ? v->state : 0;
	rp.state = v->kind == VK_V_LTL ? state_set(v->state, rp.states, sizeof(rp.states)) : model.states[rp.st];
	rp.event = model_event_name(&model, v->event);
	rp.keyname = rp.r == &timer_rule ? (model.scope == VK_GLOBAL ? NULL : "key")
		     : rp.r->key >= 0 ? model_field_name(rp.r, rp.r->key) : NULL;
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
		   "                         [--check] [--print-model] [--conform EVENTS] [--instances N]\n"
		   "                         [--unlink-model]\n"
		   "                         MODEL.vk [-- COMMAND ARGS...]\n"
		   "Runs a compiled vigil model (written by `vigil monitor`) as an eBPF program.\n");
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
		} else if (!strcmp(a, "--unlink-model")) {
			opt.unlink_model = true;
		} else if (!strcmp(a, "--print-model")) {
			opt.print_model = true;
		} else if (!strcmp(a, "--conform") && i + 1 < argc) {
			opt.conform = argv[++i];
		} else if (!strcmp(a, "--instances") && i + 1 < argc) {
			char *end;
			unsigned long n = strtoul(argv[++i], &end, 10);

			if (*end || end == argv[i] || n == 0 || n > MAX_INSTANCES)
				lu_die("--instances takes 1 to %u, not `%s`", MAX_INSTANCES, argv[i]);
			opt.instances = (unsigned)n;
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
		} else if (!opt.model) {
			opt.model = a;
		} else {
			usage(stderr);
			lu_die("unexpected argument `%s` (a command goes after `--`)", a);
		}
	}
	if (i < argc)
		opt.command = &argv[i];
	if (!opt.model) {
		usage(stderr);
		lu_die("no compiled model given");
	}
}

/* Every tracepoint the model needs must exist in the kernel's BTF. */
static void check_tracepoints(void)
{
	struct btf *btf;
	int missing = 0, ntp = 0;
	char loc[PATH_MAX + 32];

	for (int i = 0; i < model.nrules; i++)
		ntp += model.rules[i].kind == SRC_TP;
	if (!ntp)
		return;
	btf = btf__load_vmlinux_btf();
	if (!btf)
		lu_die("cannot read the kernel's BTF (/sys/kernel/btf/vmlinux): %s; "
		       "vigil monitor needs a kernel built with CONFIG_DEBUG_INFO_BTF",
		       strerror(errno));
	for (int i = 0; i < model.nrules; i++) {
		const struct model_rule *r = &model.rules[i];
		char name[128];

		if (r->kind != SRC_TP)
			continue;
		snprintf(name, sizeof(name), "btf_trace_%s", r->tp_name);
		if (btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF) >= 0)
			continue;
		fprintf(stderr, "%s: error: this kernel has no tracepoint %s (needed by event %s, %s)\n",
			lu_prog_name, r->tp_name, model_event_name(&model, r->vk->event), where(r, loc, sizeof(loc)));
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

	for (int i = 0; i < model.nuprobes; i++) {
		struct uprobe_src *u = &model.uprobes[i];
		const struct model_rule *r = &model.rules[u->first_rule];
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

	for (int i = 0; i < model.nrules; i++) {
		const struct model_rule *r = &model.rules[i];

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
	printf("%s: ok: %d states, %d events, %d rules, scope %s (model %s, binding %s)\n", model.name,
	       model.nstates, model.nevents, model.nrules, scope_names[model.scope], model.model, model.binding);
	for (int t = 0; t < VIGIL_NR_TRACEPOINTS; t++)
		if (u->tp[t])
			printf("  tracepoint %s: present\n", vigil_tracepoints[t].name);
	for (int i = 0; i < model.nuprobes; i++)
		printf("  %s %s in %s\n", model.uprobes[i].kind == SRC_CALL ? "uprobe" : "uretprobe",
		       model.uprobes[i].func, model.uprobes[i].path);
}

/* The file of the program uprobes attach to: --binary, else the command. */
static void find_binary(void)
{
	if (opt.binary) {
		binary_path = lu_find_in_path(opt.binary);
		if (!binary_path)
			lu_die("--binary %s: no such file", opt.binary);
	} else if (opt.command && model.nuprobes) {
		/* A command given as a path is taken as it is, even when it is not
		 * a regular file: resolve_uprobes then says it is not ELF. */
		binary_path = strchr(opt.command[0], '/') ? realpath(opt.command[0], NULL)
							  : lu_find_in_path(opt.command[0]);
		if (!binary_path)
			lu_die("cannot find the command %s", opt.command[0]);
	}
}

/* An LTL model's maps: its automaton, and its instances in place of the
 * automata's (which then keep one entry). */
static void size_ltl_maps(void)
{
	const struct vk_ltl *l = model.vk.ltl;

	if (!l) {
		bpf_map__set_max_entries(skel->maps.vigil_ltl_inst, 1);
		return;
	}
	bpf_map__set_max_entries(skel->maps.vigil_ltl_states, l->nstates ? l->nstates : 1);
	bpf_map__set_max_entries(skel->maps.vigil_ltl_terms, l->nterms ? l->nterms : 1);
	bpf_map__set_max_entries(skel->maps.vigil_ltl_inst, opt.instances);
	bpf_map__set_max_entries(skel->maps.vigil_inst_state, 1);
}

/* A hybrid automaton's maps: edges, invariants, guards, and its instances
 * (with lock and timer) in place of the automata's. */
static void size_hybrid_maps(void)
{
	const struct vk_header *h = model.vk.h;

	if (h->kind != VK_HA) {
		bpf_map__set_max_entries(skel->maps.vigil_ha_inst, 1);
		return;
	}
	bpf_map__set_max_entries(skel->maps.vigil_edges, h->nstates * h->nevents);
	bpf_map__set_max_entries(skel->maps.vigil_invs, h->nstates);
	bpf_map__set_max_entries(skel->maps.vigil_guards, h->nguards ? h->nguards : 1);
	bpf_map__set_max_entries(skel->maps.vigil_ha_inst, opt.instances);
	bpf_map__set_max_entries(skel->maps.vigil_inst_state, 1);
}

/* Open the skeleton, size its maps, load only the programs the binding needs. */
static void open_and_load(const struct usage *u, int ncpus, bool conform)
{
	const char *debug = getenv("VIGIL_BPF_DEBUG");
	int err;

	lu_libbpf_log_init(debug && *debug && strcmp(debug, "0"));
	skel = monitor_bpf__open();
	if (!skel) {
		lu_libbpf_log_print();
		lu_die("cannot open the BPF object: %s", strerror(errno));
	}
	skel->rodata->vigil_kind = model.vk.h->kind;
	skel->rodata->vigil_use_timers = !conform;
	skel->rodata->vigil_conform_tid = conform ? (__u32)gettid() : 0;
	skel->rodata->vigil_nevents = model.nevents;
	skel->rodata->vigil_scope = model.scope;
	skel->rodata->vigil_has_start_rules = model.vk.h->has_start;
	skel->rodata->vigil_reactor_stop = opt.stop;
	skel->rodata->vigil_ncpus = ncpus;
	bpf_map__set_max_entries(skel->maps.vigil_next, model.nstates * model.nevents);
	bpf_map__set_max_entries(skel->maps.vigil_finals, model.nstates);
	bpf_map__set_max_entries(skel->maps.vigil_cmps, model.vk.h->ncmps ? model.vk.h->ncmps : 1);
	if (model.scope == VK_TASK || model.scope == VK_OBJECT)
		bpf_map__set_max_entries(skel->maps.vigil_inst_state, opt.instances);
	size_ltl_maps();
	size_hybrid_maps();
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
	bpf_program__set_autoload(skel->progs.conform_event, conform);
	err = monitor_bpf__load(skel);
	if (err) {
		lu_libbpf_log_print();
		lu_die("cannot load the BPF monitor: %s", strerror(-err));
	}
}

/* Copy one section of the compiled model into its array map, as is. */
static void fill_array(struct bpf_map *map, const void *elems, size_t elem_size, unsigned n, const char *what)
{
	for (__u32 k = 0; k < n; k++)
		if (bpf_map__update_elem(map, &k, sizeof(k), (const char *)elems + k * elem_size, elem_size,
					 BPF_ANY))
			lu_die("cannot fill the %s map: %s", what, strerror(errno));
}

/* The compiled model's tables: transitions, final states, conditions. */
static void fill_model(void)
{
	const struct vk_header *h = model.vk.h;

	fill_array(skel->maps.vigil_next, model.vk.next, sizeof(__u16), h->nstates * h->nevents, "transition");
	fill_array(skel->maps.vigil_finals, model.vk.finals, sizeof(__u8), h->nstates, "final-state");
	fill_array(skel->maps.vigil_cmps, model.vk.cmps, sizeof(struct vk_cmp), h->ncmps, "condition");
	if (h->kind == VK_HA) {
		fill_array(skel->maps.vigil_edges, model.vk.edges, sizeof(struct vk_edge), h->nstates * h->nevents,
			   "edge");
		fill_array(skel->maps.vigil_invs, model.vk.inv, sizeof(struct vk_inv), h->nstates, "invariant");
		fill_array(skel->maps.vigil_guards, model.vk.guards, sizeof(struct vk_guard), h->nguards, "guard");
	}
	if (model.vk.ltl) {
		fill_array(skel->maps.vigil_ltl, model.vk.ltl, sizeof(struct vk_ltl), 1, "LTL automaton");
		fill_array(skel->maps.vigil_ltl_states, model.vk.ltl_states, sizeof(struct vk_ltl_state),
			   model.vk.ltl->nstates, "LTL state");
		fill_array(skel->maps.vigil_ltl_terms, model.vk.ltl_terms, sizeof(struct vk_ltl_term),
			   model.vk.ltl->nterms, "LTL label");
	}
}

/* The rules, copied from the compiled model and grouped by source slot. */
static void fill_rules(void)
{
	for (int slot = 0; slot < VIGIL_NR_SOURCES; slot++) {
		struct vigil_rules rs;
		__u32 k = slot;

		memset(&rs, 0, sizeof(rs));
		for (int i = 0; i < model.nrules; i++) {
			if (model.rules[i].slot != slot)
				continue;
			rs.id[rs.n] = i;
			rs.rule[rs.n++] = *model.rules[i].vk;
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
		       where(&model.rules[u->first_rule], loc, sizeof(loc)));
	}
	a->links[a->n++] = l;
}

/* call:F is a uprobe; return:F a uprobe that saves the arguments and a
 * uretprobe that reads them. */
static void attach_uprobes(struct attachments *a)
{
	for (int i = 0; i < model.nuprobes; i++) {
		const struct uprobe_src *u = &model.uprobes[i];

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
	fprintf(stderr, "vigil monitor: %s (scope %s): attached %s", model.name, scope_names[model.scope],
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
	json_str(stdout, model.name);
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
	       model.name, cnt[VIGIL_CNT_SEEN], cnt[VIGIL_CNT_PROCESSED], violations,
	       violations == 1 ? "" : "s", cnt[VIGIL_CNT_DROPS], elapsed,
	       elapsed > 0 ? cnt[VIGIL_CNT_SEEN] / elapsed : 0.0);
	printf("  attached: %s\n", attached);
	if (opt.stop && stop_seen)
		printf("  stopped at the first violation (--reactor stop)\n");
	if (child_status >= 0)
		printf("  command %s exited with status %d\n", opt.command[0], lu_exit_status(child_status));
}

static void need_root(void)
{
	if (geteuid() != 0)
		lu_die("vigil monitor loads eBPF programs and needs root (CAP_BPF and CAP_PERFMON); "
		       "run it with sudo");
}

/* --conform: load the program with no source attached, run the events. */
static int run_conformance(void)
{
	struct usage none = { 0 };
	int ncpus;

	need_root();
	ncpus = libbpf_num_possible_cpus();
	if (ncpus <= 0)
		lu_die("cannot count the possible cpus");
	open_and_load(&none, ncpus, true);
	fill_model();
	fill_rules();
	if (!bpf_program__attach(skel->progs.conform_event)) {
		lu_libbpf_log_print();
		lu_die("cannot attach the conformance program to sys_enter: %s", strerror(errno));
	}
	return conform_run(skel, &model, opt.conform);
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
	model_load(&model, opt.model);
	if (opt.unlink_model)
		unlink(opt.model);
	if (opt.print_model) {
		model_print(stdout, &model);
		return EXIT_OK;
	}
	if (opt.conform) {
		/* Nothing is attached: the kernel need not have the tracepoints. */
		model_check_handlers(&model);
		return run_conformance();
	}
	find_binary();
	check_tracepoints();
	model_check_handlers(&model);
	if (model.vk.h->kind == VK_HA && model.nuprobes)
		lu_die("%s: a hybrid model with function sources: uprobe programs cannot use the timers and "
		       "locks of the eBPF engine's clocks (use tracepoints, or vigil check offline)",
		       model.file);
	resolve_uprobes();
	struct usage used = used_sources();

	if (opt.check) {
		print_check(&used);
		return EXIT_OK;
	}
	need_root();
	ncpus = libbpf_num_possible_cpus();
	if (ncpus <= 0)
		lu_die("cannot count the possible cpus");
	open_and_load(&used, ncpus, false);
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
