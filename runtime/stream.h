/*
 * stream.h — the event stream's internals (vigil/stream.h is the contract
 * with instrumented code; docs/stream-format.md the one with collectors).
 *
 *   stream_buffer.c     per-thread chunk rings, the producer's slow path
 *   stream_consumer.c   the consumer thread: drains rings into batches
 *   stream_writer.c     batch numbers; batches, marks and the end sent
 *   stream_schema.c     the event table
 *   stream_bson.c       hello, schema, batch, mark and end documents (libbson)
 *   stream_link.c       the destination: file, Unix or TCP, acks, spill
 *   stream_config.c     VIGIL_STREAM*, clocks
 *   stream_life.c       start-up, exit, abort, fork and fatal signals
 *
 * vigil record's loader (bpf/record.c) links config, writer, schema, bson
 * and link: it is a producer whose events come from the kernel.
 */
#ifndef VIGIL_STREAM_INTERNAL_H
#define VIGIL_STREAM_INTERNAL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "vigil/stream.h"

enum vg_stream_mode { VG_LOSSLESS = 0, VG_DISCARD = 1 };

struct vg_stream_config {
  const char *dest;      /* VIGIL_STREAM, null: off */
  int mode;              /* VIGIL_STREAM_MODE */
  int cpu;               /* VIGIL_STREAM_CPU, -1: not pinned */
  size_t chunk_bytes;    /* VIGIL_STREAM_BUFFER: one chunk of a thread's ring */
  unsigned chunks;       /* VIGIL_STREAM_CHUNKS: chunks per thread (2: double buffering) */
  unsigned flush_ms;     /* VIGIL_STREAM_FLUSH_MS: partly filled chunks ship after this */
  unsigned linger_ms;    /* VIGIL_STREAM_LINGER_MS: wait for acks at exit */
  size_t retain_bytes;   /* VIGIL_STREAM_RETAIN: unacknowledged batches kept in memory */
  unsigned stall_ms;     /* VIGIL_STREAM_STALL_MS: past the retention, a collector this
                            long without progress gets batches spilled, not waited for */
  const char *spill_dir; /* VIGIL_STREAM_SPILL_DIR, default TMPDIR or /tmp */
};
extern struct vg_stream_config vg_stream_config;
void vg_stream_read_environment(void);
uint64_t vg_stream_now_ns(void); /* CLOCK_MONOTONIC */
uint64_t vg_stream_now_ms(void);

/* One chunk's bookkeeping; its words live in vg_stream_buf.words. */
struct vg_chunk {
  _Atomic uint32_t full;   /* 1: published, the consumer's until it clears it */
  uint32_t words;          /* words used, set before `full` */
  uint64_t lost_before;    /* the thread's lost events when it became active */
};

struct vg_stream_buf {
  struct vigil_stream_cursor cursor; /* producer: hot; cursor.pos read by the consumer */
  /* producer */
  uint32_t active;          /* chunk being filled, or UINT32_MAX while none is free */
  uint32_t last;            /* the chunk filled last */
  uint32_t chunk_words;
  uint32_t nchunks;
  _Atomic uint64_t lost;    /* discard mode: events not recorded */
  int64_t tid;
  _Atomic int exited;       /* the thread is gone; freed by the consumer once drained */
  _Atomic uint32_t waiting; /* lossless: the thread sleeps on a chunk's `full` */
  struct vg_stream_buf *next; /* registry; only the consumer unlinks */
  /* consumer */
  uint32_t rd, rd_words;    /* chunk being read, words of it shipped */
  uint64_t rd_seq;          /* sequence number of the next event to ship */
  uint64_t rd_lost;         /* lost_before of the chunk being read */
  int rd_started;           /* rd_lost has been taken from chunk rd */
  uint64_t last_ship_ms;
  struct vg_chunk *chunk;
  uint64_t *words;
};

/* stream_buffer.c */
extern _Atomic(struct vg_stream_buf *) vg_stream_bufs;
void vg_stream_thread_exit(void *buf);
void vg_stream_publish_current(void); /* the calling thread's chunk, if any */
void vg_stream_forget_all(void);      /* a forked child: the parent's buffers */

/* stream_schema.c */
struct vg_stream_event {
  char *name;
  const char *kind;
  unsigned nargs;
  uint8_t types[VIGIL_STREAM_MAX_ARGS]; /* index into vg_stream_types */
  char *names[VIGIL_STREAM_MAX_ARGS];   /* argument names, or all null */
};
extern const char *const vg_stream_types[3];
unsigned vg_stream_event_count(void); /* acquire: declared so far */
const struct vg_stream_event *vg_stream_event_at(unsigned id);

/* stream_consumer.c */
void vg_stream_consumer_start(void); /* idempotent */
void vg_stream_kick(void);           /* a chunk is full: wake the consumer */
void vg_stream_stop(unsigned wait_ms); /* drain, send `end`, wait for acks */
void vg_stream_flush_wait(void);       /* ship all, wait for acks; go on */
int vg_stream_consumer_running(void);
void vg_stream_consumer_forget(void);  /* a forked child: no consumer yet */

/* stream_writer.c: one thread per process calls these */
struct vg_clock { uint64_t tsc, ns; double ns_per_tick; };
struct vg_thread_total { int64_t tid; uint64_t produced, lost; };
/* Records in w[0, *nwords); a malformed tail is cut from *nwords. */
int vg_stream_count_records(const uint64_t *w, size_t *nwords);
/* n records of thread `tid`, the first with sequence number `tseq`; `lost`:
 * the thread's lost events so far.  Numbered and queued for the link. */
void vg_stream_ship(int64_t tid, uint64_t tseq, uint64_t lost, uint32_t n,
                    const struct vg_clock *clock, const uint64_t *words, size_t nwords);
void vg_stream_send_mark(uint64_t ns);
void vg_stream_send_end(const struct vg_thread_total *t, size_t n);
int64_t vg_stream_batches_sent(void);
void vg_stream_writer_forget(void);

/* stream_bson.c: each returns a malloc'ed document and its length */
uint8_t *vg_bson_hello(const char *stream, int64_t resume, unsigned from,
                       unsigned to, size_t *len);
uint8_t *vg_bson_schema(unsigned from, unsigned to, size_t *len);
uint8_t *vg_bson_batch(int64_t seq, int64_t tid, uint64_t tseq, uint64_t lost,
                       uint32_t n, const struct vg_clock *clock, const uint64_t *words,
                       size_t nwords, size_t *len);
uint8_t *vg_bson_mark(uint64_t ns, size_t *len);
uint8_t *vg_bson_end(int64_t seq, const struct vg_thread_total *t, size_t n,
                     size_t *len);
/* hello's `program` and `pid` when the events are another process's
 * (vigil record); default: this process */
void vg_stream_identity(const char *program, int pid);
/* an incoming document: 1 = ack (seq set), 2 = error (msg set), 0 = other,
 * -1 = malformed */
int vg_bson_reply(const uint8_t *doc, size_t len, int64_t *seq, char *msg,
                  size_t msgsz);

/* stream_link.c: the destination */
#define VG_DOC_END (-2) /* vg_link_send's seq for the `end` document */
int vg_link_open(const char *dest);  /* 0, or -1 with a message printed */
/* Queues a document for the destination (takes `doc`).  `seq` >= 0 for a
 * batch (kept until acknowledged), VG_DOC_END for the end (kept in
 * spills), -1 for other documents. */
void vg_link_send(uint8_t *doc, size_t len, int64_t seq);
void vg_link_announce(unsigned to); /* events [0, to) are declared */
/* Writes, reads acks, reconnects; waits up to timeout_ms for the socket or
 * for wake_fd (the consumer's eventfd) to be readable. */
void vg_link_poll(int timeout_ms, int wake_fd);
int vg_link_idle(void);             /* nothing queued or unacknowledged */
int vg_link_full(void);             /* wait: past the retention, collector alive */
void vg_link_close(int spill);      /* spill what is unacknowledged */
void vg_link_forget(void);          /* a forked child */
extern char vg_stream_id[96];

#endif /* VIGIL_STREAM_INTERNAL_H */
