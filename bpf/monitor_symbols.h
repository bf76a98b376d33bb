/*
 * monitor_symbols.h — symbols for the eBPF monitor's reports: functions of
 * ELF files (uprobe targets and user stacks), the kernel's kallsyms, and a
 * process's mappings (bpf/monitor_symbols.c).
 */
#ifndef VIGIL_MONITOR_SYMBOLS_H
#define VIGIL_MONITOR_SYMBOLS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/types.h>

#include "symbolizer.h"

/* Inlined frames ulines() reports per address, at most. */
#define ULINES_INLINE 4

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

struct map_ent {
	uint64_t start, end, offset;
	char path[PATH_MAX];
};

struct proc_maps {
	uint32_t tgid;
	int n;
	struct map_ent *ents;
};

struct elf_info *elf_load(const char *path);
const struct elf_sym *elf_find_func(struct elf_info *info, const char *name);
void load_kallsyms(void);
void ksym_name(uint64_t addr, char *buf, size_t len);
bool is_monitor_frame(uint64_t addr);
void read_maps(uint32_t tgid, struct proc_maps *m);
void usym_name(const struct proc_maps *m, uint64_t addr, struct elf_info *fallback,
		      int64_t bias, bool have_bias, char *buf, size_t len);
void ulines(const struct proc_maps *m, const __u64 *ustack, int nu,
		   struct elf_info *fallback, int64_t bias, bool have_bias,
		   struct vg_symbol *syms, int *counts);

#endif
