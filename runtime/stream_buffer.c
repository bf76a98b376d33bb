/*
 * stream_buffer.c — each thread's ring of chunks and the producer's slow
 * path.
 *
 * ReBIS double-buffers: a thread fills one buffer while the consumer drains
 * the other.  A ring of VIGIL_STREAM_CHUNKS chunks (2 by default) is the
 * same with more slack for bursts.  The producer owns the chunk it fills;
 * publishing it (`full` = 1, release) hands it to the consumer, which
 * clears `full` when it has shipped it.  Nothing on the producer's path
 * takes a lock or makes a system call, except to wake a sleeping consumer
 * once per chunk and, in lossless mode, to wait for a chunk to come back.
 *
 * The consumer may also ship the filled part of the chunk being written
 * (it reads cursor.pos, stored with release order after each record), so a
 * slow thread's events leave within VIGIL_STREAM_FLUSH_MS.
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "stream.h"

uint8_t __vigil_stream_on;
_Thread_local struct vigil_stream_cursor *__vigil_stream_cursor;
_Atomic(struct vg_stream_buf *) vg_stream_bufs;

static _Thread_local int torn_down; /* vg_stream_thread_exit ran */
static pthread_key_t exit_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

static void make_key(void) { pthread_key_create(&exit_key, vg_stream_thread_exit); }

static uint64_t *chunk_start(struct vg_stream_buf *b, uint32_t i) {
  return b->words + (size_t)i * b->chunk_words;
}

static void activate(struct vg_stream_buf *b, uint32_t i) {
  b->active = i;
  b->chunk[i].lost_before = atomic_load_explicit(&b->lost, memory_order_relaxed);
  b->cursor.end = chunk_start(b, i) + b->chunk_words;
  /* release: the consumer that sees pos inside chunk i sees lost_before */
  __atomic_store_n(&b->cursor.pos, chunk_start(b, i), __ATOMIC_RELEASE);
}

static struct vg_stream_buf *new_buf(void) {
  struct vg_stream_buf *b = calloc(1, sizeof *b);
  size_t words = vg_stream_config.chunk_bytes / 8;
  if (!b)
    return NULL;
  b->nchunks = vg_stream_config.chunks;
  b->chunk_words = (uint32_t)words;
  b->chunk = calloc(b->nchunks, sizeof *b->chunk);
  b->words = malloc(words * 8 * b->nchunks);
  if (!b->chunk || !b->words) {
    free(b->chunk);
    free(b->words);
    free(b);
    return NULL;
  }
  b->tid = gettid();
  activate(b, 0);
  struct vg_stream_buf *head = atomic_load(&vg_stream_bufs);
  do
    b->next = head;
  while (!atomic_compare_exchange_weak(&vg_stream_bufs, &head, b));
  return b;
}

static void publish(struct vg_stream_buf *b) {
  if (b->active == UINT32_MAX)
    return;
  struct vg_chunk *c = &b->chunk[b->active];
  c->words = (uint32_t)(b->cursor.pos - chunk_start(b, b->active));
  atomic_store_explicit(&c->full, 1, memory_order_release);
  b->last = b->active;
  b->active = UINT32_MAX;
  b->cursor.end = b->cursor.pos; /* every next event takes the slow path */
}

/* The next chunk, if the consumer has given it back. */
static int next_chunk(struct vg_stream_buf *b, uint32_t after) {
  uint32_t n = (after + 1) % b->nchunks;
  if (atomic_load_explicit(&b->chunk[n].full, memory_order_acquire))
    return 0;
  activate(b, n);
  return 1;
}

/* Lossless: the thread waits for the consumer to give chunk `n` back: a
 * few yields (a consumer on another core is usually about done), then a
 * futex on the chunk's `full` word, which the consumer wakes when it
 * clears it and sees `waiting` (stream_consumer.c, drain).  The two sides
 * store one word and load the other, both sequentially consistent, so one
 * of them sees the other's store: no wake-up is missed.  The 10 ms
 * timeout is only a guard (a consumer that ends without giving it back).
 * Polling instead cost 240 waiting threads on one core seconds of system
 * time (measured: bench/stream, docs/performance.md). */
static void sleep_on(_Atomic uint32_t *word) {
  struct timespec ts = {0, 10000000};
  syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, 1u, &ts, NULL, 0);
}

static int wait_for_chunk(struct vg_stream_buf *b, uint32_t after) {
  uint32_t n = (after + 1) % b->nchunks;
  for (unsigned spins = 0; !next_chunk(b, after); spins++) {
    if (!vg_stream_consumer_running())
      return 0; /* the stream has ended (exit, fatal signal): nobody drains */
    vg_stream_kick();
    if (spins < 16) {
      sched_yield();
      continue;
    }
    atomic_store(&b->waiting, 1);
    if (atomic_load(&b->chunk[n].full))
      sleep_on(&b->chunk[n].full);
    atomic_store(&b->waiting, 0);
  }
  return 1;
}

uint64_t *__vigil_stream_reserve(uint32_t words) {
  if (!__vigil_stream_on || torn_down)
    return NULL;
  struct vg_stream_buf *b = (struct vg_stream_buf *)__vigil_stream_cursor;
  if (!b) {
    if (words > vg_stream_config.chunk_bytes / 8)
      return NULL;
    vg_stream_consumer_start();
    pthread_once(&key_once, make_key);
    if (!(b = new_buf()))
      return NULL;
    pthread_setspecific(exit_key, b);
    __vigil_stream_cursor = &b->cursor;
    return b->cursor.pos;
  }
  if (words > b->chunk_words) { /* cannot fit any chunk: say so by counting */
    atomic_fetch_add_explicit(&b->lost, 1, memory_order_relaxed);
    return NULL;
  }
  if (b->active != UINT32_MAX) {
    publish(b);
    vg_stream_kick();
  }
  /* the ring's order is the consumer's: after the chunk published last */
  uint32_t was = b->last;
  if (next_chunk(b, was))
    return b->cursor.pos;
  if (vg_stream_config.mode == VG_LOSSLESS)
    return wait_for_chunk(b, was) ? b->cursor.pos : NULL;
  atomic_fetch_add_explicit(&b->lost, 1, memory_order_relaxed);
  return NULL;
}

void vg_stream_publish_current(void) {
  struct vg_stream_buf *b = (struct vg_stream_buf *)__vigil_stream_cursor;
  if (b)
    publish(b);
}

/* pthread key destructor: the thread's last chunk goes to the consumer,
 * which frees the buffer once it has shipped everything. */
void vg_stream_thread_exit(void *p) {
  struct vg_stream_buf *b = p;
  publish(b);
  __vigil_stream_cursor = NULL;
  torn_down = 1;
  atomic_store_explicit(&b->exited, 1, memory_order_release);
  vg_stream_kick();
}

/* A forked child: its copies of the parent's buffers hold the parent's
 * events, which the parent ships; the child starts empty. */
void vg_stream_forget_all(void) {
  struct vg_stream_buf *b = atomic_exchange(&vg_stream_bufs, NULL);
  while (b) {
    struct vg_stream_buf *next = b->next;
    free(b->chunk);
    free(b->words);
    free(b);
    b = next;
  }
  __vigil_stream_cursor = NULL;
  if (pthread_once(&key_once, make_key) == 0)
    pthread_setspecific(exit_key, NULL);
}
