// SPDX-License-Identifier: MIT OR Apache-2.0
/*
 * record_tracefs.c: tracepoints as tracefs describes them.  The format file
 * (events/SYSTEM/NAME/format) gives each field of the raw record with its
 * offset, size and signedness: what the generic BPF program copies is
 * decoded from it, so any tracepoint of any kernel can be recorded without
 * compiling anything for it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "loader_util.h"
#include "record.h"
#include "record_loader.h"

static bool is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* libbpf looks for tracepoint ids under /sys/kernel/debug/tracing when it
 * exists, else /sys/kernel/tracing: the same order here.  Mounting tracefs
 * when neither is there is what perf does too. */
const char *tracefs_events_dir(void)
{
	static const char *dirs[] = { "/sys/kernel/debug/tracing/events", "/sys/kernel/tracing/events" };

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (is_dir(dirs[i]))
			return dirs[i];
	if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) != 0)
		lu_die("cannot read the kernel's tracepoints: tracefs is not mounted at /sys/kernel/tracing "
		       "and mounting it failed: %s",
		       strerror(errno));
	if (!is_dir(dirs[1]))
		lu_die("cannot read the kernel's tracepoints: no %s after mounting tracefs", dirs[1]);
	return dirs[1];
}

/* Why a field is not recorded, or null when it is. */
static const char *unrecordable(const char *decl, unsigned offset, unsigned size, int nfields)
{
	if (strstr(decl, "__data_loc"))
		return "__data_loc";
	if (strchr(decl, '['))
		return "array";
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return "size";
	if (offset + size > VIGIL_REC_TP_BYTES)
		return "offset";
	if (nfields == VIGIL_STREAM_MAX_ARGS)
		return "too many";
	return NULL;
}

/* One `field:TYPE NAME; offset:N; size:N; signed:N;` line; common fields and
 * unrecordable ones are left out (the latter listed in `skipped`). */
static void parse_field(const char *line, struct probe *p, char *skipped, size_t skipsz)
{
	char decl[256], *name, *end;
	unsigned offset, size, sign;
	const char *semi, *why;
	uint8_t type;

	if (!(line = strstr(line, "field:")) || !(semi = strchr(line, ';')))
		return;
	snprintf(decl, sizeof(decl), "%.*s", (int)(semi - line - 6), line + 6);
	if (sscanf(semi, "; offset:%u; size:%u; signed:%u;", &offset, &size, &sign) != 3)
		return;
	/* The name is the last word; an array's brackets follow it. */
	end = decl + strlen(decl);
	if ((name = strchr(decl, '[')))
		end = name;
	while (end > decl && end[-1] == ' ')
		end--;
	name = end;
	while (name > decl && name[-1] != ' ' && name[-1] != '*')
		name--;
	if (!strncmp(name, "common_", 7))
		return;
	why = unrecordable(decl, offset, size, p->nfields);
	if (why) {
		size_t used = strlen(skipped);

		snprintf(skipped + used, skipsz - used, "%s%.*s (%s)", used ? ", " : "", (int)(end - name),
			 name, why);
		return;
	}
	type = strchr(decl, '*') ? T_PTR : sign ? T_I64 : T_U64;
	*end = 0;
	p->fields[p->nfields++] =
		(struct tp_field){ .name = lu_xstrdup(name), .offset = offset, .size = size, .type = type };
	if (offset + size > p->bytes)
		p->bytes = offset + size;
}

int tracefs_read_format(const char *system, const char *name, struct probe *p)
{
	char path[512], line[1024], skipped[1024] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/%s/format", tracefs_events_dir(), system, name);
	f = fopen(path, "re");
	if (!f)
		return -1;
	p->nfields = 0;
	p->bytes = 0;
	while (fgets(line, sizeof(line), f))
		parse_field(line, p, skipped, sizeof(skipped));
	fclose(f);
	/* Said once per tracepoint: strings and arrays are not argument words. */
	if (skipped[0])
		lu_warn("%s:%s: fields not recorded (only scalar fields within the first %d bytes, "
			"at most %d): %s",
			system, name, VIGIL_REC_TP_BYTES, VIGIL_STREAM_MAX_ARGS, skipped);
	return 0;
}
