/*
 * stream_config.c — VIGIL_STREAM* and the stream's life: start before
 * main, flush at exit, on VIGIL_ON_FAILURE=abort and on fatal signals, and
 * a stream of its own for a forked child.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "stream.h"

struct vg_stream_config vg_stream_config = {
    .mode = VG_LOSSLESS,
    .cpu = -1,
    .chunk_bytes = 64 << 10,
    .chunks = 2,
    .flush_ms = 20,
    .linger_ms = 5000,
    .retain_bytes = 256u << 20,
};

static long number(const char *var, long lo, long hi, long dflt) {
  const char *v = getenv(var);
  if (!v || !*v)
    return dflt;
  char *end;
  errno = 0;
  long n = strtol(v, &end, 10);
  if (*end || errno || n < lo || n > hi) {
    fprintf(stderr, "vigil: ignoring %s=%s (expected a number from %ld to %ld)\n", var, v,
            lo, hi);
    return dflt;
  }
  return n;
}

static size_t size(const char *var, size_t lo, size_t hi, size_t dflt) {
  const char *v = getenv(var);
  size_t n;
  if (!v || !*v || vg_parse_size(var, v, &n) != 0)
    return dflt;
  if (n < lo || n > hi) {
    fprintf(stderr, "vigil: ignoring %s=%s (expected %zu to %zu bytes)\n", var, v, lo, hi);
    return dflt;
  }
  return n;
}

static void read_environment(void) {
  struct vg_stream_config *c = &vg_stream_config;
  const char *v = getenv("VIGIL_STREAM_MODE");
  if (v && *v) {
    if (!strcmp(v, "lossless"))
      c->mode = VG_LOSSLESS;
    else if (!strcmp(v, "discard"))
      c->mode = VG_DISCARD;
    else
      fprintf(stderr, "vigil: ignoring VIGIL_STREAM_MODE=%s (expected lossless or discard)\n", v);
  }
  c->cpu = (int)number("VIGIL_STREAM_CPU", -1, CPU_SETSIZE - 1, -1);
  /* a chunk holds at least one record of the most arguments */
  c->chunk_bytes = size("VIGIL_STREAM_BUFFER", 256, 1u << 30, c->chunk_bytes) & ~(size_t)7;
  c->chunks = (unsigned)number("VIGIL_STREAM_CHUNKS", 2, 1024, c->chunks);
  c->flush_ms = (unsigned)number("VIGIL_STREAM_FLUSH_MS", 1, 60000, c->flush_ms);
  c->linger_ms = (unsigned)number("VIGIL_STREAM_LINGER_MS", 0, 3600000, c->linger_ms);
  c->retain_bytes = size("VIGIL_STREAM_RETAIN", 1u << 20, (size_t)1 << 40, c->retain_bytes);
  c->spill_dir = getenv("VIGIL_STREAM_SPILL_DIR");
  if (!c->spill_dir || !*c->spill_dir)
    c->spill_dir = getenv("TMPDIR");
  if (!c->spill_dir || !*c->spill_dir)
    c->spill_dir = "/tmp";
}

static void at_exit(void) { vg_stream_stop(vg_stream_config.linger_ms + 1000); }

static void in_child(void) {
  vg_stream_forget_all();
  vg_stream_consumer_forget();
  vg_link_forget();
  vg_stream_consumer_start();
}

/* Fatal signals: publish this thread's chunk, let the consumer ship
 * everything (bounded), then die as the signal says. */
static const int fatal[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTERM, SIGINT};
static struct sigaction previous[sizeof fatal / sizeof *fatal];

static void on_fatal(int sig) {
  static volatile sig_atomic_t once;
  if (!once) {
    once = 1;
    vg_stream_publish_current();
    vg_stream_stop(2000);
  }
  for (size_t i = 0; i < sizeof fatal / sizeof *fatal; i++)
    if (fatal[i] == sig)
      sigaction(sig, &previous[i], NULL);
  raise(sig);
}

static void catch_fatal_signals(void) {
  for (size_t i = 0; i < sizeof fatal / sizeof *fatal; i++) {
    struct sigaction sa = {.sa_handler = on_fatal, .sa_flags = SA_NODEFER | SA_RESETHAND};
    sigemptyset(&sa.sa_mask);
    struct sigaction old;
    if (sigaction(fatal[i], NULL, &old) == 0 && old.sa_handler != SIG_DFL &&
        !(fatal[i] == SIGSEGV || fatal[i] == SIGABRT || fatal[i] == SIGBUS))
      continue; /* the program handles it: leave it alone */
    sigaction(fatal[i], &sa, &previous[i]);
  }
}

__attribute__((constructor(101))) static void stream_init(void) {
  const char *dest = getenv("VIGIL_STREAM");
  if (!dest || !*dest)
    return;
  vg_stream_config.dest = dest;
  read_environment();
  if (vg_link_open(dest) != 0)
    return;
  __vigil_stream_on = 1;
  atexit(at_exit);
  pthread_atfork(NULL, NULL, in_child);
  catch_fatal_signals();
  vg_stream_consumer_start();
}

void vigil_stream_flush(void) {
  /* a full flush is a stop: the stream's `end` says what was produced */
  vg_stream_stop(vg_stream_config.linger_ms + 1000);
}
