/*
 * symbolizer.c — one run of llvm-symbolizer over a batch of addresses.
 *
 * posix_spawn with two pipes; all queries are written (a few KiB, within
 * the pipe's buffer), stdin is closed, the answers are read to the end and
 * the child is waited for, so no process outlives the call.  SIGPIPE is
 * blocked while writing, in case the tool dies first.  Answers are the
 * tool's default (LLVM) style: per query, pairs of lines "function" and
 * "file:line:col", innermost inlined frame first, then a blank line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "symbolizer.h"

extern char **environ;

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

/* "file:line:col" (or "??:0:0") into the symbol. */
static void parse_location(struct vg_symbol *sy, char *loc) {
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
  snprintf(sy->file, sizeof sy->file, "%s", loc);
  sy->line = (unsigned)strtoul(c1 + 1, NULL, 10);
  sy->column = (unsigned)strtoul(c2 + 1, NULL, 10);
}

/* One answer: pairs of lines up to a blank line; frames that name
 * nothing are not counted. */
static int read_answer(FILE *in, struct vg_symbol *out, int max, int *count) {
  char fn[512], loc[1024];
  int n = 0, lines = 0;
  for (;;) {
    if (!fgets(fn, sizeof fn, in))
      return -1;
    fn[strcspn(fn, "\n")] = 0;
    if (!*fn)
      break;
    if (!fgets(loc, sizeof loc, in))
      return -1;
    loc[strcspn(loc, "\n")] = 0;
    lines++;
    if (n == max)
      continue;
    struct vg_symbol *sy = &out[n];
    memset(sy, 0, sizeof *sy);
    if (strcmp(fn, "??"))
      snprintf(sy->function, sizeof sy->function, "%s", fn);
    parse_location(sy, loc);
    if (sy->function[0] || sy->file[0])
      n++;
  }
  *count = n;
  return lines ? 0 : -1;
}

int vg_symbolizer_run(const char *const *modules, const uint64_t *addrs, int n,
                      int max_inline, struct vg_symbol *out, int *counts) {
  int to, from;
  pid_t pid;
  if (n <= 0 || spawn(&to, &from, &pid) < 0)
    return -1;
  char *q = NULL;
  size_t qlen = 0;
  FILE *qs = open_memstream(&q, &qlen);
  for (int i = 0; qs && i < n; i++)
    fprintf(qs, "CODE \"%s\" 0x%llx\n", modules[i], (unsigned long long)addrs[i]);
  if (qs)
    fclose(qs);
  int rc = q ? write_all(to, q, qlen) : -1;
  free(q);
  close(to);
  FILE *in = fdopen(from, "r");
  for (int i = 0; rc == 0 && in && i < n; i++)
    rc = read_answer(in, &out[i * max_inline], max_inline, &counts[i]);
  if (in)
    fclose(in);
  else
    close(from);
  while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
  }
  return in ? rc : -1;
}
