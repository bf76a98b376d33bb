// SPDX-License-Identifier: MIT OR Apache-2.0
/*
 * record_probes.c: what to record.  `--uprobe BINARY:FUNC[+OFFSET]` and
 * `--tracepoint SYSTEM:NAME` become entries of the probe table (the BPF
 * cookie of each attachment is its index), are checked against the files
 * and the kernel before anything is loaded or started, and become the
 * stream's event table.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader_util.h"
#include "record.h"
#include "record_loader.h"

struct probe *probes;
int nprobes;
static int cap;

static struct probe *new_probe(enum probe_kind kind, const char *spec)
{
	struct probe *p;

	if (nprobes == cap) {
		cap = cap ? 2 * cap : 16;
		probes = lu_xrealloc(probes, cap * sizeof(*probes));
	}
	p = &probes[nprobes++];
	memset(p, 0, sizeof(*p));
	p->kind = kind;
	p->spec = spec;
	return p;
}

static void refuse_twice(const char *option, const char *spec, bool tracepoint)
{
	for (int i = 0; i < nprobes; i++)
		if (!strcmp(probes[i].spec, spec) && (probes[i].kind == P_TRACEPOINT) == tracepoint)
			lu_die("%s %s is given twice", option, spec);
}

static bool is_symbol_char(int c)
{
	return isalnum(c) || c == '_' || c == '.' || c == '$' || c == '@';
}

/* BINARY:FUNC or BINARY:FUNC+OFFSET (OFFSET decimal or 0x hex). */
void probes_add_uprobe(const char *spec)
{
	const char *colon = strrchr(spec, ':'), *plus;
	uint64_t offset = 0;
	bool has_offset;
	char *func;

	if (!colon || colon == spec || !colon[1])
		goto bad;
	plus = strchr(colon + 1, '+');
	has_offset = plus != NULL;
	if (has_offset) {
		/* 0x hex or decimal: a leading 0 is not octal here (nor in vigil record) */
		bool hex = plus[1] == '0' && (plus[2] == 'x' || plus[2] == 'X');
		const char *digits = plus + 1 + (hex ? 2 : 0);
		char *end;

		errno = 0;
		offset = strtoull(digits, &end, hex ? 16 : 10);
		if (!isxdigit((unsigned char)*digits) || *end || errno)
			goto bad;
	}
	func = strndup(colon + 1, has_offset ? (size_t)(plus - colon - 1) : strlen(colon + 1));
	if (!func)
		lu_die("out of memory");
	if (!*func)
		goto bad;
	for (const char *c = func; *c; c++)
		if (!is_symbol_char((unsigned char)*c))
			goto bad;
	refuse_twice("--uprobe", spec, false);
	for (int k = 0; k < (has_offset ? 1 : 2); k++) {
		struct probe *p = new_probe(has_offset ? P_OFFSET : k ? P_RETURN : P_ENTRY, spec);

		p->path = strndup(spec, colon - spec);
		p->func = func;
		p->offset = offset;
		if (!p->path)
			lu_die("out of memory");
	}
	return;
bad:
	lu_die("--uprobe %s: expected BINARY:FUNC or BINARY:FUNC+0xOFFSET (FUNC a symbol of BINARY, "
	       "a program or a library)",
	       spec);
}

static bool is_tracefs_name(const char *s, size_t n)
{
	if (!n || (n <= 2 && s[0] == '.' && (n == 1 || s[1] == '.')))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-' && s[i] != '.')
			return false;
	return true;
}

void probes_add_tracepoint(const char *spec)
{
	const char *colon = strchr(spec, ':');
	struct probe *p;

	if (!colon || !is_tracefs_name(spec, colon - spec) || !is_tracefs_name(colon + 1, strlen(colon + 1)))
		lu_die("--tracepoint %s: expected SYSTEM:NAME, as in /sys/kernel/tracing/events/SYSTEM/NAME "
		       "(e.g. sched:sched_switch)",
		       spec);
	refuse_twice("--tracepoint", spec, true);
	p = new_probe(P_TRACEPOINT, spec);
	p->system = strndup(spec, colon - spec);
	p->name = lu_xstrdup(colon + 1);
	if (!p->system)
		lu_die("out of memory");
}

/* The file of BINARY: a path, a program on $PATH, or a library name. */
static char *resolve_binary(const struct probe *p)
{
	char *path = lu_find_in_path(p->path);

	if (!path && !strchr(p->path, '/'))
		path = lu_find_library(p->path);
	if (!path)
		lu_die("--uprobe %s: no such file, program on $PATH or library: %s", p->spec, p->path);
	return path;
}

void probes_resolve_uprobes(void)
{
	for (int i = 0; i < nprobes; i++) {
		struct probe *p = &probes[i];
		uint64_t size;
		char *path;

		if (p->kind == P_TRACEPOINT)
			continue;
		if (p->kind == P_RETURN) { /* its entry probe, just before, did the work */
			free(p->path);
			p->path = probes[i - 1].path;
			continue;
		}
		path = resolve_binary(p);
		switch (lu_elf_function(path, p->func, &size)) {
		case LU_ELF_NOT_ELF:
			lu_die("--uprobe %s: %s is not an ELF file", p->spec, path);
		case LU_ELF_NO_FUNC:
			lu_die("--uprobe %s: function %s not found in %s", p->spec, p->func, path);
		}
		if (p->kind == P_OFFSET && size && p->offset >= size)
			lu_die("--uprobe %s: offset 0x%llx is past the end of %s (%llu bytes)", p->spec,
			       (unsigned long long)p->offset, p->func, (unsigned long long)size);
		free(p->path);
		p->path = path;
	}
}

void probes_resolve_tracepoints(void)
{
	for (int i = 0; i < nprobes; i++) {
		struct probe *p = &probes[i];

		if (p->kind != P_TRACEPOINT)
			continue;
		if (tracefs_read_format(p->system, p->name, p) != 0)
			lu_die("--tracepoint %s: this kernel has no tracepoint %s:%s (no %s/%s/%s/format)",
			       p->spec, p->system, p->name, tracefs_events_dir(), p->system, p->name);
	}
}

/* FUNC, or BASENAME:FUNC when FUNC is probed in two different files. */
static void event_name(const struct probe *p, char *buf, size_t len)
{
	for (int j = 0; j < nprobes; j++) {
		const struct probe *q = &probes[j];

		if (q->kind != P_TRACEPOINT && !strcmp(q->func, p->func) && strcmp(q->path, p->path)) {
			char *copy = lu_xstrdup(p->path);

			snprintf(buf, len, "%s:%s", basename(copy), p->func);
			free(copy);
			return;
		}
	}
	snprintf(buf, len, "%s", p->func);
}

#if defined(__x86_64__)
static const char *const regs[VIGIL_REC_UARGS] = { "rdi", "rsi", "rdx", "rcx", "r8", "r9" };
#elif defined(__aarch64__)
static const char *const regs[VIGIL_REC_UARGS] = { "x0", "x1", "x2", "x3", "x4", "x5" };
#else
static const char *const regs[VIGIL_REC_UARGS] = { "parm1", "parm2", "parm3", "parm4", "parm5", "parm6" };
#endif
static const char *const arg_names[VIGIL_REC_UARGS] = { "arg0", "arg1", "arg2", "arg3", "arg4", "arg5" };
static const char *const u64s[VIGIL_REC_UARGS] = { "u64", "u64", "u64", "u64", "u64", "u64" };
static const char *const type_names[] = { [T_I64] = "i64", [T_U64] = "u64", [T_PTR] = "ptr" };

static void declare(struct probe *p)
{
	const char *types[VIGIL_STREAM_MAX_ARGS], *names[VIGIL_STREAM_MAX_ARGS];
	static const char *const ret_type[] = { "i64" }, *const ret_name[] = { "ret" };
	char name[512];

	switch (p->kind) {
	case P_ENTRY:
		event_name(p, name, sizeof(name));
		p->nargs = VIGIL_REC_UARGS;
		p->id = vigil_stream_declare_named(name, "entry", p->nargs, u64s, arg_names);
		break;
	case P_RETURN:
		event_name(p, name, sizeof(name));
		p->nargs = 1;
		p->id = vigil_stream_declare_named(name, "return", 1, ret_type, ret_name);
		break;
	case P_OFFSET:
		event_name(p, name, sizeof(name));
		snprintf(name + strlen(name), sizeof(name) - strlen(name), "+0x%llx",
			 (unsigned long long)p->offset);
		p->nargs = VIGIL_REC_UARGS;
		p->id = vigil_stream_declare_named(name, "uprobe", p->nargs, u64s, regs);
		break;
	case P_TRACEPOINT:
		for (int f = 0; f < p->nfields; f++) {
			types[f] = type_names[p->fields[f].type];
			names[f] = p->fields[f].name;
		}
		snprintf(name, sizeof(name), "%s:%s", p->system, p->name);
		p->nargs = p->nfields;
		p->id = vigil_stream_declare_named(name, "tracepoint", p->nargs, types, names);
		break;
	}
	if (p->id == UINT32_MAX)
		lu_die("cannot declare the stream event of %s", p->spec);
}

void probes_declare(void)
{
	for (int i = 0; i < nprobes; i++)
		declare(&probes[i]);
}
