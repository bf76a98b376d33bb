/*
 * stream_consumer.c — the consumer thread (ReBIS's analysis thread).
 *
 * It walks the registered threads' rings, ships each published chunk as
 * one batch (and, every VIGIL_STREAM_FLUSH_MS, the filled part of chunks
 * still being written), gives the chunk back, and keeps the destination
 * going (stream_link.c).  It sleeps in poll() on an eventfd and the
 * socket; a producer writes the eventfd only when it published a chunk
 * while the consumer sleeps, so a busy stream costs no system call per
 * chunk.  VIGIL_STREAM_CPU pins it (ReBIS Table 5.1: pinning helps most
 * with small buffers and many threads); by default the scheduler places
 * it, since on a machine with fewer cores than busy threads a pinned
 * consumer competes with whichever producers share its core.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "stream.h"

static pthread_t consumer;
static _Atomic int state; /* 0 idle, 1 running, 2 stopping, 3 done */
static _Atomic int sleeping;
static _Atomic uint64_t flush_req, flush_done;
static int wake_fd = -1;
static struct vg_clock clock0;
/* totals of threads that exited (for the `end` document) */
static struct vg_thread_total *gone;
static size_t ngone, capgone;

static uint64_t now_ns(void) { return vg_stream_now_ns(); }

/* Ticks to nanoseconds over the longest baseline available: the consumer's
 * start to now. */
static struct vg_clock clock_now(void) {
  struct vg_clock c = {.tsc = vigil_stream_ticks(), .ns = now_ns()};
  c.ns_per_tick = c.tsc > clock0.tsc && c.ns > clock0.ns + 1000000
                      ? (double)(c.ns - clock0.ns) / (double)(c.tsc - clock0.tsc)
                      : clock0.ns_per_tick;
  return c;
}

static void calibrate(void) {
  struct timespec pause = {0, 5000000};
  clock0.tsc = vigil_stream_ticks();
  clock0.ns = now_ns();
  nanosleep(&pause, NULL);
  uint64_t t = vigil_stream_ticks(), n = now_ns();
  clock0.ns_per_tick = t > clock0.tsc ? (double)(n - clock0.ns) / (double)(t - clock0.tsc) : 1.0;
}

void vg_stream_kick(void) {
  if (atomic_load_explicit(&sleeping, memory_order_relaxed) && wake_fd >= 0) {
    uint64_t one = 1;
    (void)!write(wake_fd, &one, sizeof one);
  }
}

static unsigned shipped; /* batches since the last mark */

static void ship(struct vg_stream_buf *b, const uint64_t *w, size_t nwords) {
  int n = vg_stream_count_records(w, &nwords);
  if (n <= 0)
    return;
  struct vg_clock c = clock_now();
  vg_stream_ship(b->tid, b->rd_seq, b->rd_lost, (uint32_t)n, &c, w, nwords);
  b->rd_seq += (uint64_t)n;
  shipped++;
}

/* Ships what thread b has published (and, if `partial`, the filled part of
 * the chunk it is writing).  Returns the number of batches. */
static unsigned drain(struct vg_stream_buf *b, int partial) {
  unsigned batches = 0;
  for (;;) {
    struct vg_chunk *c = &b->chunk[b->rd];
    uint64_t *start = b->words + (size_t)b->rd * b->chunk_words;
    int full = atomic_load_explicit(&c->full, memory_order_acquire);
    size_t limit = 0;
    if (full) {
      limit = c->words;
    } else if (partial) {
      uint64_t *pos = __atomic_load_n(&b->cursor.pos, __ATOMIC_ACQUIRE);
      if (pos > start && pos <= start + b->chunk_words)
        limit = (size_t)(pos - start);
    }
    if (!full && limit <= b->rd_words)
      return batches;
    if (!b->rd_started) { /* events lost before this chunk: a gap in seq */
      b->rd_seq += c->lost_before - b->rd_lost;
      b->rd_lost = c->lost_before;
      b->rd_started = 1;
    }
    if (limit > b->rd_words) {
      ship(b, start + b->rd_words, limit - b->rd_words);
      b->rd_words = (uint32_t)limit;
      batches++;
    }
    if (!full)
      return batches;
    b->rd_words = 0;
    b->rd_started = 0;
    b->rd = (b->rd + 1) % b->nchunks;
    /* seq_cst, then `waiting`: see stream_buffer.c, wait_for_chunk */
    atomic_store(&c->full, 0);
    if (atomic_load(&b->waiting))
      syscall(SYS_futex, (uint32_t *)&c->full, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
  }
}

static struct vg_thread_total total_of(const struct vg_stream_buf *b) {
  uint64_t lost = atomic_load(&b->lost);
  return (struct vg_thread_total){b->tid, b->rd_seq + (lost - b->rd_lost), lost};
}

static void remember(const struct vg_stream_buf *b) {
  if (ngone == capgone) {
    size_t cap = capgone ? capgone * 2 : 64;
    struct vg_thread_total *t = realloc(gone, cap * sizeof *t);
    if (!t)
      return;
    gone = t;
    capgone = cap;
  }
  gone[ngone++] = total_of(b);
}

/* An exited thread's buffer may go once no chunk waits.  The producer
 * fills chunks in ring order, so a full chunk that is not the next to
 * read would be a bug: said, not silently freed. */
static int drained(struct vg_stream_buf *b) {
  if (atomic_load(&b->chunk[b->rd].full))
    return 0;
  for (uint32_t i = 0; i < b->nchunks; i++)
    if (atomic_load(&b->chunk[i].full)) {
      fprintf(stderr, "vigil: stream: internal error: thread %lld's chunk %u is full out of "
                      "order; its events are not shipped\n", (long long)b->tid, i);
      return 1;
    }
  return 1;
}

/* One pass over the registry; exited threads are freed once drained. */
static unsigned drain_all(int partial) {
  unsigned batches = 0;
  struct vg_stream_buf **link = NULL, *b = atomic_load(&vg_stream_bufs);
  while (b) {
    int exited = atomic_load_explicit(&b->exited, memory_order_acquire);
    batches += drain(b, partial || exited);
    struct vg_stream_buf *next = b->next;
    if (exited && drained(b)) {
      struct vg_stream_buf *expected = b;
      if (link) {
        *link = next;
      } else if (!atomic_compare_exchange_strong(&vg_stream_bufs, &expected, next)) {
        /* a thread registered meanwhile: b is no longer the head */
        struct vg_stream_buf *p = atomic_load(&vg_stream_bufs);
        while (p->next != b)
          p = p->next;
        p->next = next;
      }
      remember(b);
      free(b->chunk);
      free(b->words);
      free(b);
    } else {
      link = &b->next;
    }
    b = next;
  }
  return batches;
}

static void send_end(void) {
  size_t n = ngone;
  for (struct vg_stream_buf *b = atomic_load(&vg_stream_bufs); b; b = b->next)
    n++;
  struct vg_thread_total *t = malloc((n ? n : 1) * sizeof *t);
  if (!t)
    return;
  size_t i = 0;
  for (; i < ngone; i++)
    t[i] = gone[i];
  for (struct vg_stream_buf *b = atomic_load(&vg_stream_bufs); b && i < n; b = b->next)
    t[i++] = total_of(b);
  vg_stream_send_end(t, i);
  free(t);
}

static void pin(void) {
  if (vg_stream_config.cpu < 0)
    return;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(vg_stream_config.cpu, &set);
  if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0)
    fprintf(stderr, "vigil: VIGIL_STREAM_CPU=%d: cannot pin the consumer there\n",
            vg_stream_config.cpu);
}

/* Every thread's filled part ships, then a mark (docs/stream-format.md)
 * for the start of the pass before: an event stamped before it had its
 * cursor stored before this pass read it, unless its thread was preempted
 * for a whole flush interval between the two.  Marks follow batches only,
 * so an idle stream sends none (and retains none unacknowledged). */
static unsigned partial_pass(void) {
  static uint64_t prev_start;
  static unsigned shipped_before;
  uint64_t start = now_ns();
  unsigned batches = drain_all(1);
  if ((shipped || shipped_before) && prev_start)
    vg_stream_send_mark(prev_start);
  shipped_before = shipped;
  shipped = 0;
  prev_start = start;
  return batches;
}

/* vigil_stream_flush: served once everything drained by then is
 * acknowledged, or after the linger time. */
static uint64_t serving, serve_until;

static void serve_flush(uint64_t now_ms) {
  uint64_t req = atomic_load(&flush_req);
  if (req > serving && !serve_until) {
    serving = req;
    serve_until = now_ms + vg_stream_config.linger_ms;
  }
  if (serve_until && (vg_link_idle() || now_ms >= serve_until)) {
    atomic_store(&flush_done, serving);
    serve_until = 0;
  }
}

static void *run(void *arg) {
  (void)arg;
  pin();
  calibrate();
  uint64_t last_partial = vg_stream_now_ms(), deadline = 0;
  for (;;) {
    int stopping = atomic_load(&state) == 2;
    uint64_t now = vg_stream_now_ms();
    int flushing = atomic_load(&flush_req) > serving;
    unsigned batches = 0;
    int behind = !stopping && vg_link_full();
    if (deadline) {
      /* the end is queued: nothing may follow it; only acks are awaited */
    } else if (behind) {
      /* the collector is behind: chunks stay full and producers wait; the
       * consumer waits for the socket only (a waiting producer's wake-ups
       * would spin it) */
    } else if (stopping || flushing || now - last_partial >= vg_stream_config.flush_ms) {
      batches = partial_pass();
      last_partial = now;
    } else {
      batches = drain_all(0);
    }
    if (stopping && !deadline) {
      send_end();
      deadline = now + vg_stream_config.linger_ms;
    }
    if (deadline && (vg_link_idle() || now >= deadline))
      break;
    atomic_store(&sleeping, 1);
    vg_link_poll(batches || serve_until ? 0 : (int)vg_stream_config.flush_ms,
                 behind ? -1 : wake_fd);
    atomic_store(&sleeping, 0);
    uint64_t drained;
    (void)!read(wake_fd, &drained, sizeof drained);
    serve_flush(vg_stream_now_ms());
  }
  vg_link_close(1);
  atomic_store(&flush_done, UINT64_MAX);
  atomic_store(&state, 3);
  return NULL;
}

void vg_stream_consumer_start(void) {
  int idle = 0;
  if (!atomic_compare_exchange_strong(&state, &idle, 1))
    return;
  char host[64] = "";
  gethostname(host, sizeof host - 1);
  snprintf(vg_stream_id, sizeof vg_stream_id, "%.60s:%d:%llu", host, (int)getpid(),
           (unsigned long long)now_ns());
  if (wake_fd < 0)
    wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old); /* the program's signals are not ours */
  if (pthread_create(&consumer, NULL, run, NULL) != 0) {
    fprintf(stderr, "vigil: stream: cannot start the consumer thread; not streaming\n");
    __vigil_stream_on = 0;
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* Drains everything, sends `end`, waits for acknowledgements up to the
 * linger time, spills the rest.  At most wait_ms for the consumer. */
void vg_stream_stop(unsigned wait_ms) {
  int running = 1;
  if (!atomic_compare_exchange_strong(&state, &running, 2))
    return;
  /* what is produced from here on is after the stream's `end` */
  __vigil_stream_on = 0;
  vg_stream_publish_current();
  uint64_t one = 1;
  (void)!write(wake_fd, &one, sizeof one);
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += wait_ms / 1000;
  until.tv_nsec += (long)(wait_ms % 1000) * 1000000;
  if (until.tv_nsec >= 1000000000) {
    until.tv_sec++;
    until.tv_nsec -= 1000000000;
  }
  if (pthread_timedjoin_np(consumer, NULL, &until) != 0)
    fprintf(stderr, "vigil: stream: the consumer did not finish in %u ms\n", wait_ms);
}

int vg_stream_consumer_running(void) { return atomic_load(&state) == 1; }

void vg_stream_flush_wait(void) {
  if (!vg_stream_consumer_running())
    return;
  uint64_t req = atomic_fetch_add(&flush_req, 1) + 1;
  uint64_t one = 1;
  (void)!write(wake_fd, &one, sizeof one);
  /* the consumer gives up after the linger time; this waits a little
   * longer for it to say so */
  uint64_t until = vg_stream_now_ms() + vg_stream_config.linger_ms + 1000;
  struct timespec ms = {0, 1000000};
  while (atomic_load(&flush_done) < req && vg_stream_consumer_running() &&
         vg_stream_now_ms() < until)
    nanosleep(&ms, NULL);
}

void vg_stream_consumer_forget(void) {
  atomic_store(&state, 0);
  atomic_store(&sleeping, 0);
  atomic_store(&flush_req, 0);
  atomic_store(&flush_done, 0);
  shipped = 0;
  free(gone);
  gone = NULL;
  ngone = capgone = 0;
}
