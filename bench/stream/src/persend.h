/*
 * persend.h — the baseline of "buffered vs one send per event" (ReBIS §5.4:
 * its buffered inscount against a naive one that sent after every
 * instruction).  Included by tick.c with -DVARIANT_PERSEND.
 *
 * Each event is written by the thread that produced it, with one send() of
 * a one-record `batch` document, to the same `vigil collect` the buffered
 * runs use: a correct stream in the format of docs/stream-format.md, which
 * the collector validates, counts and acknowledges.
 *
 * One connection per thread, each its own stream (its own `hello`, batch
 * numbers from 0 and `end`), rather than one connection shared under a
 * mutex: vigil's buffered producer gives every thread a buffer of its own
 * and takes no lock, so the per-send baseline gets a socket of its own and
 * takes no lock either.  A shared connection would add lock hand-offs
 * between threads (and, at 240 threads on 2 cores, convoys) to the
 * baseline, and the ratio would then measure the lock as much as the
 * buffering.  This is the stronger baseline.
 *
 * Everything that can be prepared is: the batch is a template built once
 * per thread; an event patches its batch number, sequence number,
 * timestamp and argument word in place and sends the document (~170 bytes).
 * The socket is blocking, so a collector that falls behind slows the
 * threads (lossless, as VIGIL_STREAM_MODE=lossless).  Nagle's algorithm
 * is left on: the kernel may coalesce small segments, in the baseline's
 * favour (TCP_NODELAY measured no different by hand).  At its end a thread
 * sends `end` and reads the collector's acknowledgements until its last
 * batch is acknowledged, as the buffered runs' vigil_stream_flush() waits
 * for theirs.
 */
#ifndef VIGIL_BENCH_PERSEND_H
#define VIGIL_BENCH_PERSEND_H

#include <errno.h>
#include <netdb.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

enum { PERSEND_ENTRY = 0, PERSEND_RETURN = 1 };

/* ---- a minimal BSON writer over a fixed buffer ---------------------------- */
struct bw {
  uint8_t *p;
  size_t n, cap;
};

static void bw_raw(struct bw *b, const void *x, size_t n) {
  if (b->n + n > b->cap) {
    fprintf(stderr, "persend: document too large\n");
    exit(2);
  }
  memcpy(b->p + b->n, x, n);
  b->n += n;
}
static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); } /* little-endian hosts */
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static size_t bw_begin(struct bw *b) {
  size_t at = b->n;
  bw_raw(b, "\0\0\0\0", 4);
  return at;
}
static void bw_end(struct bw *b, size_t at) {
  bw_raw(b, "", 1);
  put32(b->p + at, (uint32_t)(b->n - at));
}
static void bw_key(struct bw *b, uint8_t type, const char *key) {
  bw_raw(b, &type, 1);
  bw_raw(b, key, strlen(key) + 1);
}
static void bw_str(struct bw *b, const char *key, const char *s) {
  uint8_t len[4];
  bw_key(b, 0x02, key);
  put32(len, (uint32_t)strlen(s) + 1);
  bw_raw(b, len, 4);
  bw_raw(b, s, strlen(s) + 1);
}
static void bw_i32(struct bw *b, const char *key, int32_t v) {
  bw_key(b, 0x10, key);
  bw_raw(b, &v, 4);
}
static size_t bw_i64(struct bw *b, const char *key, int64_t v) {
  bw_key(b, 0x12, key);
  bw_raw(b, &v, 8);
  return b->n - 8;
}
static void bw_f64(struct bw *b, const char *key, double v) {
  bw_key(b, 0x01, key);
  bw_raw(b, &v, 8);
}
static size_t bw_sub(struct bw *b, uint8_t type, const char *key) {
  bw_key(b, type, key); /* 0x03 document, 0x04 array */
  return bw_begin(b);
}

/* ---- the process: destination, clock, identity ------------------------------ */
static struct {
  char host[256], port[16], path[108];
  int unix_socket;
  uint64_t tsc0, ns0;
  double ns_per_tick;
  char hostname[64], exe[512];
} PS;

static uint64_t ps_ticks(void) { return __builtin_ia32_rdtsc(); }
static uint64_t ps_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void persend_init(void) {
  const char *d = getenv("VIGIL_STREAM");
  if (d && !strncmp(d, "tcp://", 6)) {
    const char *hp = d + 6, *colon = strrchr(hp, ':');
    if (colon && colon > hp) {
      snprintf(PS.host, sizeof PS.host, "%.*s", (int)(colon - hp), hp);
      snprintf(PS.port, sizeof PS.port, "%s", colon + 1);
    }
  } else if (d && !strncmp(d, "unix:", 5)) {
    PS.unix_socket = 1;
    snprintf(PS.path, sizeof PS.path, "%s", d + 5);
  }
  if (!PS.host[0] && !PS.unix_socket) {
    fprintf(stderr, "persend: VIGIL_STREAM must be tcp://HOST:PORT or unix:PATH\n");
    exit(2);
  }
  struct timespec pause = {0, 5000000};
  PS.tsc0 = ps_ticks();
  PS.ns0 = ps_ns();
  nanosleep(&pause, NULL);
  PS.ns_per_tick = (double)(ps_ns() - PS.ns0) / (double)(ps_ticks() - PS.tsc0);
  gethostname(PS.hostname, sizeof PS.hostname - 1);
  ssize_t n = readlink("/proc/self/exe", PS.exe, sizeof PS.exe - 1);
  PS.exe[n > 0 ? n : 0] = 0;
}

/* ---- one thread: its connection and its batch template --------------------- */
static __thread struct {
  int fd;
  int64_t seq, tid;
  uint8_t tmpl[256];
  size_t len, off_seq, off_tseq, off_ev;
} PT;

static void send_all(const uint8_t *p, size_t n) {
  while (n) {
    ssize_t w = send(PT.fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0) {
      perror("persend: send");
      exit(3);
    }
    p += w;
    n -= (size_t)w;
  }
}

static int ps_connect(void) {
  if (PS.unix_socket) {
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", PS.path);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    return fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0 ? fd : -1;
  }
  struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res = NULL;
  if (getaddrinfo(PS.host, PS.port, &hints, &res) != 0)
    return -1;
  int fd = socket(res->ai_family, res->ai_socktype, res->ai_protocol);
  if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) != 0) {
    close(fd);
    fd = -1;
  }
  freeaddrinfo(res);
  return fd;
}

static void send_hello(void) {
  uint8_t buf[1024];
  char stream[160];
  struct bw b = {buf, 0, sizeof buf};
  snprintf(stream, sizeof stream, "%s:%d:%lld:%llu", PS.hostname, (int)getpid(),
           (long long)PT.tid, (unsigned long long)ps_ns());
  size_t doc = bw_begin(&b);
  bw_str(&b, "t", "hello");
  bw_i32(&b, "v", 1);
  bw_str(&b, "stream", stream);
  bw_str(&b, "program", PS.exe);
  bw_i32(&b, "pid", (int32_t)getpid());
  bw_str(&b, "host", PS.hostname);
  bw_str(&b, "mode", "lossless");
  bw_i64(&b, "resume", 0);
  size_t evs = bw_sub(&b, 0x04, "events");
  static const char *const kind[2] = {"entry", "return"}, *const name[2] = {"i", "ret"};
  for (int id = 0; id < 2; id++) {
    size_t ev = bw_sub(&b, 0x03, id ? "1" : "0");
    bw_i32(&b, "id", id);
    bw_str(&b, "name", "tick");
    bw_str(&b, "kind", kind[id]);
    size_t args = bw_sub(&b, 0x04, "args");
    bw_str(&b, "0", "i64");
    bw_end(&b, args);
    size_t names = bw_sub(&b, 0x04, "names");
    bw_str(&b, "0", name[id]);
    bw_end(&b, names);
    bw_end(&b, ev);
  }
  bw_end(&b, evs);
  bw_end(&b, doc);
  send_all(buf, b.n);
}

/* The one-record batch every event sends, with its fields' offsets. */
static void build_template(void) {
  struct bw b = {PT.tmpl, 0, sizeof PT.tmpl};
  size_t doc = bw_begin(&b);
  bw_str(&b, "t", "batch");
  PT.off_seq = bw_i64(&b, "seq", 0);
  bw_i64(&b, "thread", PT.tid);
  PT.off_tseq = bw_i64(&b, "tseq", 0);
  bw_i64(&b, "lost", 0);
  bw_i32(&b, "n", 1);
  size_t clock = bw_sub(&b, 0x03, "clock");
  bw_i64(&b, "tsc", (int64_t)PS.tsc0);
  bw_i64(&b, "ns", (int64_t)PS.ns0);
  bw_f64(&b, "ns_per_tick", PS.ns_per_tick);
  bw_end(&b, clock);
  static const uint8_t bin[5] = {24, 0, 0, 0, 0x80}; /* 24 bytes, subtype 0x80 */
  bw_key(&b, 0x05, "ev");
  bw_raw(&b, bin, 5);
  PT.off_ev = b.n;
  bw_raw(&b, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 24);
  bw_end(&b, doc);
  PT.len = b.n;
}

static void persend_thread_start(void) {
  PT.tid = (int64_t)gettid();
  PT.fd = ps_connect();
  if (PT.fd < 0) {
    perror("persend: connect");
    exit(3);
  }
  send_hello();
  build_template();
}

/* One event: one record, one batch, one send(). */
static inline void persend_event(uint32_t id, uint64_t arg) {
  uint8_t *ev = PT.tmpl + PT.off_ev;
  put64(PT.tmpl + PT.off_seq, (uint64_t)PT.seq);
  put64(PT.tmpl + PT.off_tseq, (uint64_t)PT.seq); /* one event per batch */
  put64(ev, id | (uint64_t)1 << 32);
  put64(ev + 8, ps_ticks());
  put64(ev + 16, arg);
  send_all(PT.tmpl, PT.len);
  PT.seq++;
}

/* The newest `ack` in buf[0, n), or -2; exits on an `error`. */
static int64_t newest_ack(const uint8_t *buf, size_t n, size_t *used) {
  int64_t best = -2;
  size_t at = 0;
  while (n - at >= 5) {
    uint32_t len;
    memcpy(&len, buf + at, 4);
    if (len < 5 || len > 4096) {
      fprintf(stderr, "persend: malformed reply from the collector\n");
      exit(3);
    }
    if (n - at < len)
      break;
    const uint8_t *d = buf + at;
    if (memmem(d, len, "\x02t\0\x06\0\0\0error", 13)) {
      fprintf(stderr, "persend: the collector refused the stream\n");
      exit(3);
    }
    const uint8_t *s = memmem(d, len, "\x12seq", 5);
    if (s && s + 13 <= d + len) {
      int64_t v;
      memcpy(&v, s + 5, 8);
      if (v > best)
        best = v;
    }
    at += len;
  }
  *used = at;
  return best;
}

static void persend_thread_end(void) {
  uint8_t buf[4096];
  struct bw b = {buf, 0, sizeof buf};
  size_t doc = bw_begin(&b);
  bw_str(&b, "t", "end");
  bw_i64(&b, "seq", PT.seq);
  size_t threads = bw_sub(&b, 0x04, "threads");
  size_t t0 = bw_sub(&b, 0x03, "0");
  bw_i64(&b, "thread", PT.tid);
  bw_i64(&b, "produced", PT.seq);
  bw_i64(&b, "lost", 0);
  bw_end(&b, t0);
  bw_end(&b, threads);
  bw_end(&b, doc);
  send_all(buf, b.n);
  size_t have = 0;
  for (int64_t acked = -2; acked < PT.seq - 1;) {
    ssize_t r = recv(PT.fd, buf + have, sizeof buf - have, 0);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0) {
      fprintf(stderr, "persend: the collector closed the connection before acknowledging\n");
      exit(3);
    }
    have += (size_t)r;
    size_t used;
    int64_t a = newest_ack(buf, have, &used);
    if (a > acked)
      acked = a;
    memmove(buf, buf + used, have - used);
    have -= used;
  }
}

/* After the clock stops: a close with acknowledgements still unread would
 * reset the connection, so the collector sees the end of the stream first
 * and the thread reads up to the collector's close. */
static void persend_thread_close(void) {
  uint8_t buf[4096];
  shutdown(PT.fd, SHUT_WR);
  while (recv(PT.fd, buf, sizeof buf, 0) > 0)
    ;
  close(PT.fd);
}

#endif /* VIGIL_BENCH_PERSEND_H */
