/*
 * symbolize.c — stacks as `file:line:col in function`, at report time.
 *
 * A report's return addresses are mapped to their module and file address
 * (dl_iterate_phdr: exact for PIE, shared objects and fixed executables),
 * then symbolised by llvm-symbolizer — the tool the sanitizers use, so the
 * frames read like theirs, inlined frames included, and whatever DWARF the
 * program carries is its problem rather than ours.  It runs once per report
 * that has addresses not seen before (posix_spawn, pipes, waited for): no
 * process outlives the report, so a program that reaps its own children
 * never meets one of ours; results are cached per address, so repeated
 * violations at one place cost nothing after the first.  Without it
 * (missing, VIGIL_SYMBOLIZE=0, or it failed) a frame is `function
 * (module+0xoffset)` from the dynamic symbol table, or the module and
 * offset alone.  Weighed: libdw (elfutils) would add a shared library to
 * every instrumented program, libbacktrace is not packaged for Debian as a
 * library; llvm-symbolizer comes with clang-19, which vigil-cc needs anyway.
 * None of this is on the hot path: only reports call it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbolize.h"
#include "symbolizer.h"

#define MAX_PCS 64
#define MAX_INLINE 8
#define CACHE_SIZE 1024

/* ---- where an address is ------------------------------------------------ */

struct find {
  uintptr_t pc, bias;
  const char *name;
  int found;
};

static int find_module(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  struct find *f = data;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
    if (ph->p_type == PT_LOAD && f->pc >= lo && f->pc < lo + ph->p_memsz) {
      f->name = info->dlpi_name;
      f->bias = info->dlpi_addr;
      f->found = 1;
      return 1;
    }
  }
  return 0;
}

static char exe_path[256];
static void read_exe(void) {
  ssize_t n = readlink("/proc/self/exe", exe_path, sizeof exe_path - 1);
  exe_path[n > 0 ? n : 0] = 0;
}

/* Module, file offset of `lookup` and the dynamic symbol, if any. */
static void locate(struct vg_frame *fr, uintptr_t lookup) {
  struct find f = {.pc = lookup};
  dl_iterate_phdr(find_module, &f);
  if (!f.found)
    return;
  if (f.name && *f.name) {
    snprintf(fr->module, sizeof fr->module, "%s", f.name);
  } else { /* the main program's dlpi_name is "" */
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, read_exe);
    snprintf(fr->module, sizeof fr->module, "%s", exe_path);
  }
  fr->offset = lookup - f.bias;
  Dl_info di;
  if (dladdr((void *)lookup, &di) && di.dli_sname)
    snprintf(fr->function, sizeof fr->function, "%s", di.dli_sname);
}

/* ---- the cache of symbolised addresses ------------------------------------ */

struct entry {
  uintptr_t pc; /* 0: empty */
  int n;        /* frames, innermost inlined first */
  struct vg_frame fr[MAX_INLINE];
};
static struct entry *cache;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

static struct entry *slot(uintptr_t pc) {
  return &cache[(pc >> 2) % CACHE_SIZE];
}

/* Symbolises the frames not in the cache into dst[i] (and the cache); 0 on
 * success.  The caller reads its own copies, never the cache after this:
 * two frames of one stack may share a slot, and the second would evict the
 * first's answer before it is read (every other report lost a name). */
static int run_symbolizer(struct vg_frame *const *todo, int n, struct entry *const *dst) {
  const char **modules = calloc((size_t)n, sizeof *modules);
  uint64_t *addrs = calloc((size_t)n, sizeof *addrs);
  struct vg_symbol *syms = calloc((size_t)n * MAX_INLINE, sizeof *syms);
  int *counts = calloc((size_t)n, sizeof *counts);
  int rc = -1;
  if (modules && addrs && syms && counts) {
    for (int i = 0; i < n; i++) {
      modules[i] = todo[i]->module;
      addrs[i] = todo[i]->offset;
    }
    rc = vg_symbolizer_run(modules, addrs, n, MAX_INLINE, syms, counts);
  }
  for (int i = 0; rc == 0 && i < n; i++) {
    struct entry *e = dst[i];
    e->pc = todo[i]->address;
    e->n = counts[i] ? counts[i] : 1;
    for (int k = 0; k < e->n; k++) {
      struct vg_frame *fr = &e->fr[k];
      *fr = *todo[i];
      if (!counts[i])
        break; /* nothing known: the frame as located */
      const struct vg_symbol *sy = &syms[i * MAX_INLINE + k];
      if (sy->function[0])
        snprintf(fr->function, sizeof fr->function, "%s", sy->function);
      snprintf(fr->file, sizeof fr->file, "%s", sy->file);
      fr->line = sy->line;
      fr->column = sy->column;
    }
    *slot(e->pc) = *e;
  }
  free(modules), free(addrs), free(syms), free(counts);
  return rc;
}

/* ---- the stack ------------------------------------------------------------ */

/* libvigil's entry points, its out-of-line hooks and the inline hooks
 * (an inlined frame): the program's stack begins after the last of them. */
static int is_runtime(const char *fn) {
  return !strncmp(fn, "__vigil_", 8);
}

static int wanted(void) {
  const char *v = getenv("VIGIL_SYMBOLIZE");
  return !(v && !strcmp(v, "0"));
}

struct vg_frame *vg_stack(int *count) {
  void *pcs[MAX_PCS];
  int n = backtrace(pcs, MAX_PCS);
  uintptr_t addrs[MAX_PCS];
  for (int i = 0; i < n; i++)
    addrs[i] = (uintptr_t)pcs[i];
  return vg_stack_of(addrs, n, 0, count);
}

/* pcs[0] is an instruction's own address; the rest are return addresses
 * (the call is the byte before).  pcs[0] too when `first_is_return`. */
struct vg_frame *vg_stack_of(const uintptr_t *pcs, int n, int first_is_return,
                             int *count) {
  *count = 0;
  if (n <= 0)
    return NULL;
  struct vg_frame *base = calloc((size_t)n + 1, sizeof *base);
  struct vg_frame *out = calloc((size_t)n * MAX_INLINE + 1, sizeof *out);
  struct vg_frame **todo = calloc((size_t)n + 1, sizeof *todo);
  struct entry *known = calloc((size_t)n + 1, sizeof *known); /* frame i's answer */
  struct entry **dst = calloc((size_t)n + 1, sizeof *dst);
  *count = 0;
  if (!base || !out || !todo || !known || !dst) {
    free(base), free(out), free(todo), free(known), free(dst);
    return NULL;
  }
  for (int i = 0; i < n; i++) {
    base[i].address = pcs[i];
    /* a return address: the call is the byte before it */
    locate(&base[i], pcs[i] - (i > 0 || first_is_return));
  }
  pthread_mutex_lock(&cache_lock);
  if (wanted() && !cache)
    cache = calloc(CACHE_SIZE, sizeof *cache);
  int ntodo = 0;
  for (int i = 0; cache && i < n; i++) {
    if (slot(base[i].address)->pc == base[i].address) {
      known[i] = *slot(base[i].address); /* copied before anything evicts it */
    } else if (base[i].module[0]) {
      dst[ntodo] = &known[i];
      todo[ntodo++] = &base[i];
    }
  }
  if (ntodo && run_symbolizer(todo, ntodo, dst) < 0)
    for (int i = 0; i < ntodo; i++)
      dst[i]->pc = 0, slot(todo[i]->address)->pc = 0; /* never half an answer */
  int m = 0;
  for (int i = 0; i < n; i++) {
    struct entry *e = &known[i];
    if (e->pc == base[i].address && e->pc) {
      for (int k = 0; k < e->n; k++) {
        out[m] = e->fr[k];
        out[m++].inlined = k + 1 < e->n;
      }
    } else {
      out[m++] = base[i];
    }
  }
  pthread_mutex_unlock(&cache_lock);
  free(base);
  free(todo);
  free(known);
  free(dst);
  /* everything up to the outermost runtime frame is libvigil's */
  int first = 0;
  for (int i = 0; i < m; i++)
    if (is_runtime(out[i].function))
      first = i + 1;
  memmove(out, out + first, sizeof *out * (size_t)(m - first));
  *count = m - first;
  return out;
}

static const char *base_name(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

void vg_frame_text(struct vg_buf *b, const struct vg_frame *f, int index) {
  vg_bprintf(b, "#%d ", index);
  if (f->file[0])
    vg_bprintf(b, "%s:%u:%u in ", f->file, f->line, f->column);
  if (f->function[0])
    vg_bprintf(b, "%s ", f->function);
  if (f->inlined)
    vg_bprintf(b, "(inlined)");
  else if (f->module[0])
    vg_bprintf(b, "(%s+0x%lx)", base_name(f->module), (unsigned long)f->offset);
  else
    vg_bprintf(b, "(0x%lx)", (unsigned long)f->address);
}

void vg_frame_json(struct vg_buf *b, const struct vg_frame *f) {
  vg_bprintf(b, "{\"address\":\"0x%lx\"", (unsigned long)f->address);
  if (f->module[0]) {
    vg_bprintf(b, ",\"module\":");
    vg_bjson(b, f->module);
    vg_bprintf(b, ",\"offset\":\"0x%lx\"", (unsigned long)f->offset);
  }
  if (f->function[0]) {
    vg_bprintf(b, ",\"function\":");
    vg_bjson(b, f->function);
  }
  if (f->file[0]) {
    vg_bprintf(b, ",\"file\":");
    vg_bjson(b, f->file);
    vg_bprintf(b, ",\"line\":%u,\"column\":%u", f->line, f->column);
  }
  vg_bprintf(b, ",\"inlined\":%s}", f->inlined ? "true" : "false");
}
