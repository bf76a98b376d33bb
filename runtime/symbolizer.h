/*
 * symbolizer.h — a client of llvm-symbolizer (symbolizer.c), shared by the
 * runtime's reports (symbolize.c) and the eBPF monitor's loader
 * (bpf/monitor.c).  Plain C and libc only.
 */
#ifndef VIGIL_SYMBOLIZER_H
#define VIGIL_SYMBOLIZER_H

#include <stdint.h>

struct vg_symbol {
  char function[128]; /* "" when unknown */
  char file[256];     /* "" without debug info */
  unsigned line, column;
};

/* Symbolises n queries (the module file and an address in it: the virtual
 * address of an ELF executable or shared object) with one run of
 * llvm-symbolizer (VIGIL_SYMBOLIZER, else llvm-symbolizer-19 or
 * llvm-symbolizer).  Query i gets up to max_inline frames at
 * out[i * max_inline], innermost (inlined) first, and their number in
 * counts[i].  Returns 0, or -1 when it could not run (out untouched). */
int vg_symbolizer_run(const char *const *modules, const uint64_t *addrs, int n,
                      int max_inline, struct vg_symbol *out, int *counts);

#endif
