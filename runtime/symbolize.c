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
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "symbolize.h"

extern char **environ;

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

/* ---- llvm-symbolizer ------------------------------------------------------ */

static int spawn(int *to, int *from, pid_t *pid) {
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) < 0)
    return -1;
  if (pipe2(out, O_CLOEXEC) < 0) {
    close(in[0]), close(in[1]);
    return -1;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  /* VIGIL_SYMBOLIZER, when set, is the only one tried */
  const char *env = getenv("VIGIL_SYMBOLIZER");
  const char *progs[] = {env && *env ? env : "llvm-symbolizer-19",
                         "/usr/lib/llvm-19/bin/llvm-symbolizer", "llvm-symbolizer"};
  unsigned nprogs = env && *env ? 1 : 3;
  int rc = -1;
  for (unsigned i = 0; i < nprogs && rc != 0; i++) {
    char *argv[] = {(char *)progs[i], "--inlines", "--demangle", NULL};
    rc = posix_spawnp(pid, progs[i], &fa, NULL, argv, environ);
  }
  posix_spawn_file_actions_destroy(&fa);
  close(in[0]);
  close(out[1]);
  if (rc != 0) {
    close(in[1]);
    close(out[0]);
    return -1;
  }
  *to = in[1];
  *from = out[0];
  return 0;
}

/* Writes without dying of SIGPIPE if the symbolizer is gone. */
static int write_all(int fd, const char *p, size_t n) {
  sigset_t pipe_set, old;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
  int ok = 0;
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w <= 0) {
      ok = -1;
      break;
    }
    p += w, n -= (size_t)w;
  }
  struct timespec zero = {0, 0};
  while (sigtimedwait(&pipe_set, NULL, &zero) > 0) {
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return ok;
}

/* "file:line:col" (or "??:0:0") into the frame. */
static void parse_location(struct vg_frame *fr, char *loc) {
  char *c2 = strrchr(loc, ':');
  if (!c2)
    return;
  *c2 = 0;
  char *c1 = strrchr(loc, ':');
  if (!c1)
    return;
  *c1 = 0;
  if (!strcmp(loc, "??"))
    return;
  snprintf(fr->file, sizeof fr->file, "%s", loc);
  fr->line = (unsigned)strtoul(c1 + 1, NULL, 10);
  fr->column = (unsigned)strtoul(c2 + 1, NULL, 10);
}

/* Reads one answer (pairs of lines up to a blank line) into e. */
static int read_answer(FILE *in, struct entry *e, const struct vg_frame *base) {
  char fn[512], loc[1024];
  e->n = 0;
  for (;;) {
    if (!fgets(fn, sizeof fn, in))
      return -1;
    fn[strcspn(fn, "\n")] = 0;
    if (!*fn)
      return e->n ? 0 : -1;
    if (!fgets(loc, sizeof loc, in))
      return -1;
    loc[strcspn(loc, "\n")] = 0;
    if (e->n == MAX_INLINE)
      continue;
    struct vg_frame *fr = &e->fr[e->n++];
    *fr = *base;
    if (strcmp(fn, "??"))
      snprintf(fr->function, sizeof fr->function, "%s", fn);
    parse_location(fr, loc);
  }
}

/* Symbolises the frames not in the cache; 0 on success. */
static int run_symbolizer(struct vg_frame *const *todo, int n) {
  int to, from;
  pid_t pid;
  if (spawn(&to, &from, &pid) < 0)
    return -1;
  char *q = NULL;
  size_t qlen = 0;
  FILE *qs = open_memstream(&q, &qlen);
  for (int i = 0; qs && i < n; i++)
    fprintf(qs, "CODE \"%s\" 0x%lx\n", todo[i]->module, (unsigned long)todo[i]->offset);
  if (qs)
    fclose(qs);
  int rc = q ? write_all(to, q, qlen) : -1;
  free(q);
  close(to);
  FILE *in = fdopen(from, "r");
  for (int i = 0; rc == 0 && in && i < n; i++) {
    struct entry *e = slot(todo[i]->address);
    if (read_answer(in, e, todo[i]) == 0)
      e->pc = todo[i]->address;
    else
      rc = -1;
  }
  if (in)
    fclose(in);
  else
    close(from);
  while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
  }
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
  struct vg_frame *base = calloc((size_t)n + 1, sizeof *base);
  struct vg_frame *out = calloc((size_t)n * MAX_INLINE + 1, sizeof *out);
  struct vg_frame **todo = calloc((size_t)n + 1, sizeof *todo);
  *count = 0;
  if (!base || !out || !todo) {
    free(base), free(out), free(todo);
    return NULL;
  }
  for (int i = 0; i < n; i++) {
    base[i].address = (uintptr_t)pcs[i];
    /* a return address: the call is the byte before it */
    locate(&base[i], (uintptr_t)pcs[i] - (i > 0));
  }
  pthread_mutex_lock(&cache_lock);
  if (wanted() && !cache)
    cache = calloc(CACHE_SIZE, sizeof *cache);
  int ntodo = 0;
  for (int i = 0; cache && i < n; i++)
    if (base[i].module[0] && slot(base[i].address)->pc != base[i].address)
      todo[ntodo++] = &base[i];
  if (ntodo && run_symbolizer(todo, ntodo) < 0)
    for (int i = 0; i < ntodo; i++)
      slot(todo[i]->address)->pc = 0; /* never half an answer */
  int m = 0;
  for (int i = 0; i < n; i++) {
    struct entry *e = cache ? slot(base[i].address) : NULL;
    if (e && e->pc == base[i].address) {
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
