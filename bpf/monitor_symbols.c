/*
 * monitor_symbols.c — what the eBPF monitor's loader knows about symbols
 * (see monitor_symbols.h).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/types.h>

#include "loader_util.h"
#include "monitor.h"
#include "monitor_symbols.h"

/* ------------------------------------------------------------------------
 * ELF symbols (finding files: loader_util.c)
 */







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
struct elf_info *elf_load(const char *path)
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

const struct elf_sym *elf_find_func(struct elf_info *info, const char *name)
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

void load_kallsyms(void)
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

void ksym_name(uint64_t addr, char *buf, size_t len)
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
bool is_monitor_frame(uint64_t addr)
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





void read_maps(uint32_t tgid, struct proc_maps *m)
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
void usym_name(const struct proc_maps *m, uint64_t addr, struct elf_info *fallback,
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


/* Source lines of the user frames, by llvm-symbolizer (runtime/symbolizer.c,
 * shared with libvigil's reports): frame i gets counts[i] symbols at
 * syms[i * ULINES_INLINE], innermost inlined first; 0 when unknown or when
 * VIGIL_SYMBOLIZE=0.  Frames after the first are return addresses: the
 * call is the byte before. */
void ulines(const struct proc_maps *m, const __u64 *ustack, int nu,
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
