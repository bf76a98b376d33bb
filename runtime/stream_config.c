/*
 * stream_config.c — VIGIL_STREAM* and the clocks the stream's pieces
 * share.  No constructor: the stream's life in a traced program is
 * stream_life.c, and vigil record's loader links this file without it.
 */
#define _GNU_SOURCE
#include <sched.h>
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
    .stall_ms = 2000,
};

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

void vg_stream_read_environment(void) {
  struct vg_stream_config *c = &vg_stream_config;
  const char *v = getenv("VIGIL_STREAM_MODE");
  if (v && *v) {
    if (!strcmp(v, "lossless"))
      c->mode = VG_LOSSLESS;
    else if (!strcmp(v, "discard"))
      c->mode = VG_DISCARD;
    else
      vg_bad_value("VIGIL_STREAM_MODE", v, "lossless or discard");
  }
  c->cpu = (int)vg_env_number("VIGIL_STREAM_CPU", -1, CPU_SETSIZE - 1, -1);
  /* a chunk holds at least one record of the most arguments */
  c->chunk_bytes = size("VIGIL_STREAM_BUFFER", 256, 1u << 30, c->chunk_bytes) & ~(size_t)7;
  c->chunks = (unsigned)vg_env_number("VIGIL_STREAM_CHUNKS", 2, 1024, c->chunks);
  c->flush_ms = (unsigned)vg_env_number("VIGIL_STREAM_FLUSH_MS", 1, 60000, c->flush_ms);
  c->linger_ms = (unsigned)vg_env_number("VIGIL_STREAM_LINGER_MS", 0, 3600000, c->linger_ms);
  c->retain_bytes = size("VIGIL_STREAM_RETAIN", 1u << 20, (size_t)1 << 40, c->retain_bytes);
  c->stall_ms = (unsigned)vg_env_number("VIGIL_STREAM_STALL_MS", 1, 3600000, c->stall_ms);
  c->spill_dir = getenv("VIGIL_STREAM_SPILL_DIR");
  if (!c->spill_dir || !*c->spill_dir)
    c->spill_dir = getenv("TMPDIR");
  if (!c->spill_dir || !*c->spill_dir)
    c->spill_dir = "/tmp";
}

uint64_t vg_stream_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t vg_stream_now_ms(void) { return vg_stream_now_ns() / 1000000; }
