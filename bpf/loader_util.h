/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * What a libbpf loader of vigil needs besides its own program: errors,
 * finding programs and libraries, checking a function is in an ELF file,
 * starting a command held until the probes are attached, and keeping
 * libbpf's messages for when loading fails.  Used by vigil-bpf-monitor
 * (monitor.c) and vigil-bpf-record (record.c).
 */
#ifndef VIGIL_BPF_LOADER_UTIL_H
#define VIGIL_BPF_LOADER_UTIL_H

#include <gelf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define LU_EXIT_ERROR 2

/* "vigil monitor", "vigil record": the prefix of every message. */
extern const char *lu_prog_name;

void lu_die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
void lu_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void *lu_xcalloc(size_t n, size_t size);
void *lu_xrealloc(void *p, size_t size);
char *lu_xstrdup(const char *s);

/* A program name through $PATH (a name with '/' is taken as a path);
 * malloc'ed real path or null. */
char *lu_find_in_path(const char *name);
/* A shared library name (`libc.so.6`) through $LD_LIBRARY_PATH and the usual
 * directories; malloc'ed real path or null. */
char *lu_find_library(const char *lib);

enum lu_elf_result { LU_ELF_FOUND = 0, LU_ELF_NO_FUNC = -1, LU_ELF_NOT_ELF = -2 };
/* Is `name` a function defined in ELF file `path` (.symtab or .dynsym)?
 * *size: its st_size (0 if unknown). */
int lu_elf_function(const char *path, const char *name, uint64_t *size);

/* `path` opened by libelf, or null; any file libelf opens, ELF or not
 * (elf_kind).  Done with it: elf_end, then close(*fd). */
Elf *lu_elf_begin(const char *path, int *fd);
/* Calls fn for each function defined in `e`'s .symtab and .dynsym
 * (STT_FUNC or STT_GNU_IFUNC, with an address), in file order, until it
 * returns true; returns whether one did. */
typedef bool (*lu_elf_function_fn)(void *ctx, const char *name, const GElf_Sym *sym);
bool lu_elf_functions(Elf *e, lu_elf_function_fn fn, void *ctx);

/* Forks `argv` held before exec until lu_child_release; *gate is the
 * pipe end that releases it.  The child's error goes to stderr, status 127. */
pid_t lu_child_start(char **argv, int *gate);
/* The same with the command's standard output on `out_fd` (-1: the
 * loader's), e.g. STDERR_FILENO to keep the loader's own for its output. */
pid_t lu_child_start_out(char **argv, int *gate, int out_fd);
void lu_child_release(int *gate);
/* 0-255 exit status of a waitpid status: 128+N for signal N. */
int lu_exit_status(int status);

/* libbpf's messages: kept (all of them with `debug`), printed by
 * lu_libbpf_log_print when something failed. */
void lu_libbpf_log_init(bool debug);
void lu_libbpf_log_print(void);

#endif /* VIGIL_BPF_LOADER_UTIL_H */
