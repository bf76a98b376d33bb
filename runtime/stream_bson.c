/*
 * stream_bson.c — the stream's documents, built with libbson
 * (docs/stream-format.md).  A batch is a handful of fields and one binary
 * field holding the thread's records as they lie in its chunk: marshalling
 * costs one copy per batch, not a document per event as in ReBIS.
 */
#define _GNU_SOURCE
#include <bson/bson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stream.h"

static uint8_t *finish(bson_t *b, size_t *len) {
  uint8_t *out = bson_destroy_with_steal(b, true, NULL);
  *len = out ? ((uint32_t)out[0] | (uint32_t)out[1] << 8 | (uint32_t)out[2] << 16 |
                (uint32_t)out[3] << 24)
             : 0;
  return out;
}

static void append_events(bson_t *doc, unsigned from, unsigned to) {
  bson_t arr, ev, types;
  char key[16];
  const char *k;
  BSON_APPEND_ARRAY_BEGIN(doc, "events", &arr);
  for (unsigned id = from; id < to; id++) {
    const struct vg_stream_event *e = vg_stream_event_at(id);
    if (!e)
      break;
    bson_uint32_to_string(id - from, &k, key, sizeof key);
    bson_append_document_begin(&arr, k, -1, &ev);
    BSON_APPEND_INT32(&ev, "id", (int32_t)id);
    BSON_APPEND_UTF8(&ev, "name", e->name);
    BSON_APPEND_UTF8(&ev, "kind", e->kind);
    BSON_APPEND_ARRAY_BEGIN(&ev, "args", &types);
    for (unsigned i = 0; i < e->nargs; i++) {
      bson_uint32_to_string(i, &k, key, sizeof key);
      bson_append_utf8(&types, k, -1, vg_stream_types[e->types[i]], -1);
    }
    bson_append_array_end(&ev, &types);
    if (e->nargs && e->names[0]) {
      bson_t names;
      BSON_APPEND_ARRAY_BEGIN(&ev, "names", &names);
      for (unsigned i = 0; i < e->nargs; i++) {
        bson_uint32_to_string(i, &k, key, sizeof key);
        bson_append_utf8(&names, k, -1, e->names[i] ? e->names[i] : "", -1);
      }
      bson_append_array_end(&ev, &names);
    }
    bson_append_document_end(&arr, &ev);
  }
  bson_append_array_end(doc, &arr);
}

static char *identity_program;
static int identity_pid;

void vg_stream_identity(const char *program, int pid) {
  free(identity_program);
  identity_program = program ? strdup(program) : NULL;
  identity_pid = pid;
}

uint8_t *vg_bson_hello(const char *stream, int64_t resume, unsigned from,
                       unsigned to, size_t *len) {
  char exe[4096] = "", host[256] = "";
  if (identity_program) {
    snprintf(exe, sizeof exe, "%s", identity_program);
  } else {
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
  }
  gethostname(host, sizeof host - 1);
  bson_t *b = bson_new();
  BSON_APPEND_UTF8(b, "t", "hello");
  BSON_APPEND_INT32(b, "v", VIGIL_STREAM_FORMAT);
  BSON_APPEND_UTF8(b, "stream", stream);
  BSON_APPEND_UTF8(b, "program", exe);
  BSON_APPEND_INT32(b, "pid", (int32_t)(identity_pid ? identity_pid : getpid()));
  BSON_APPEND_UTF8(b, "host", host);
  BSON_APPEND_UTF8(b, "mode", vg_stream_config.mode == VG_LOSSLESS ? "lossless" : "discard");
  BSON_APPEND_INT64(b, "resume", resume);
  append_events(b, from, to);
  return finish(b, len);
}

uint8_t *vg_bson_schema(unsigned from, unsigned to, size_t *len) {
  bson_t *b = bson_new();
  BSON_APPEND_UTF8(b, "t", "schema");
  append_events(b, from, to);
  return finish(b, len);
}

uint8_t *vg_bson_batch(int64_t seq, int64_t tid, uint64_t tseq, uint64_t lost,
                       uint32_t n, const struct vg_clock *clock, const uint64_t *words,
                       size_t nwords, size_t *len) {
  bson_t *b = bson_sized_new(160 + nwords * 8);
  bson_t c;
  BSON_APPEND_UTF8(b, "t", "batch");
  BSON_APPEND_INT64(b, "seq", seq);
  BSON_APPEND_INT64(b, "thread", tid);
  BSON_APPEND_INT64(b, "tseq", (int64_t)tseq);
  BSON_APPEND_INT64(b, "lost", (int64_t)lost);
  BSON_APPEND_INT32(b, "n", (int32_t)n);
  BSON_APPEND_DOCUMENT_BEGIN(b, "clock", &c);
  BSON_APPEND_INT64(&c, "tsc", (int64_t)clock->tsc);
  BSON_APPEND_INT64(&c, "ns", (int64_t)clock->ns);
  BSON_APPEND_DOUBLE(&c, "ns_per_tick", clock->ns_per_tick);
  bson_append_document_end(b, &c);
  /* x86-64 and AArch64 Linux are little-endian: the words are the format */
  BSON_APPEND_BINARY(b, "ev", BSON_SUBTYPE_USER, (const uint8_t *)words,
                     (uint32_t)(nwords * 8));
  return finish(b, len);
}

uint8_t *vg_bson_mark(uint64_t ns, size_t *len) {
  bson_t *b = bson_new();
  BSON_APPEND_UTF8(b, "t", "mark");
  BSON_APPEND_INT64(b, "ns", (int64_t)ns);
  return finish(b, len);
}

uint8_t *vg_bson_end(int64_t seq, const struct vg_thread_total *t, size_t n,
                     size_t *len) {
  bson_t *b = bson_new();
  bson_t arr, one;
  char key[16];
  const char *k;
  BSON_APPEND_UTF8(b, "t", "end");
  BSON_APPEND_INT64(b, "seq", seq);
  BSON_APPEND_ARRAY_BEGIN(b, "threads", &arr);
  for (size_t i = 0; i < n; i++) {
    bson_uint32_to_string((uint32_t)i, &k, key, sizeof key);
    bson_append_document_begin(&arr, k, -1, &one);
    BSON_APPEND_INT64(&one, "thread", t[i].tid);
    BSON_APPEND_INT64(&one, "produced", (int64_t)t[i].produced);
    BSON_APPEND_INT64(&one, "lost", (int64_t)t[i].lost);
    bson_append_document_end(&arr, &one);
  }
  bson_append_array_end(b, &arr);
  return finish(b, len);
}

int vg_bson_reply(const uint8_t *doc, size_t len, int64_t *seq, char *msg,
                  size_t msgsz) {
  bson_t b;
  bson_iter_t it;
  if (!bson_init_static(&b, doc, len) || !bson_validate(&b, BSON_VALIDATE_NONE, NULL))
    return -1;
  if (!bson_iter_init_find(&it, &b, "t") || !BSON_ITER_HOLDS_UTF8(&it))
    return -1;
  const char *t = bson_iter_utf8(&it, NULL);
  if (!strcmp(t, "ack")) {
    if (!bson_iter_init_find(&it, &b, "seq") || !BSON_ITER_HOLDS_INT64(&it))
      return -1;
    *seq = bson_iter_int64(&it);
    return 1;
  }
  if (!strcmp(t, "error")) {
    snprintf(msg, msgsz, "%s",
             bson_iter_init_find(&it, &b, "msg") && BSON_ITER_HOLDS_UTF8(&it)
                 ? bson_iter_utf8(&it, NULL)
                 : "(no message)");
    return 2;
  }
  return 0;
}
