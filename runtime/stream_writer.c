/*
 * stream_writer.c — numbering and sending a stream's documents: batches,
 * marks and the end.  The consumer thread (stream_consumer.c) calls it
 * with what it drained from the threads' rings; vigil record's loader
 * (bpf/record.c) with what it read from the kernel's ring buffer.  Only one
 * thread of a process calls in here, so there is no lock.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include "stream.h"

static int64_t next_batch; /* batch numbers: consecutive from 0 per stream */

int vg_stream_count_records(const uint64_t *w, size_t *nwords) {
  uint32_t records = 0;
  size_t i = 0, n = *nwords;
  while (i + 2 <= n) {
    size_t next = i + 2 + ((w[i] >> 32) & 0xff);
    if (next > n)
      break;
    i = next;
    records++;
  }
  if (i != n) /* a producer bug: cut the malformed tail rather than ship it */
    fprintf(stderr, "vigil: stream: internal error: %zu stray words cut\n", n - i);
  *nwords = i;
  return (int)records;
}

void vg_stream_ship(int64_t tid, uint64_t tseq, uint64_t lost, uint32_t n,
                    const struct vg_clock *clock, const uint64_t *words, size_t nwords) {
  if (!n)
    return;
  vg_link_announce(vg_stream_event_count());
  size_t len;
  uint8_t *doc = vg_bson_batch(next_batch, tid, tseq, lost, n, clock, words, nwords, &len);
  if (doc)
    vg_link_send(doc, len, next_batch++);
}

void vg_stream_send_mark(uint64_t ns) {
  size_t len;
  vg_link_send(vg_bson_mark(ns, &len), len, -1);
}

void vg_stream_send_end(const struct vg_thread_total *t, size_t n) {
  size_t len;
  vg_link_announce(vg_stream_event_count());
  vg_link_send(vg_bson_end(next_batch, t, n, &len), len, VG_DOC_END);
}

int64_t vg_stream_batches_sent(void) { return next_batch; }

void vg_stream_writer_forget(void) { next_batch = 0; }
