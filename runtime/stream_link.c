/*
 * stream_link.c — the destination of the stream: a file, a Unix socket or
 * a TCP connection to `vigil collect`.
 *
 * Only the consumer thread calls in here, so there is no lock.  Sockets are
 * non-blocking: a slow or absent collector never stops the consumer, and
 * so never stops the program's threads, which wait only for the consumer.
 * Each batch stays queued until the collector acknowledges it; after a
 * reconnect (exponential back-off, 10 ms to 1 s) the new `hello` resumes at
 * the first unacknowledged batch and everything from there is sent again
 * (the collector stores each (stream, seq) once).  What cannot be kept in
 * memory (VIGIL_STREAM_RETAIN), or is still unacknowledged at exit, is
 * appended to a spill file, named once on stderr, that `vigil collect
 * --import` stores.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "stream.h"

char vg_stream_id[96];

struct doc {
  struct doc *next;
  uint8_t *bytes;
  size_t len;
  int64_t seq; /* batch number, VG_DOC_END, or -1 (hello, schema, mark) */
};

enum kind { K_FILE, K_UNIX, K_TCP };

static struct {
  int kind, fd, connected;
  char path[256], host[256], port[16];
  struct doc *head, *tail, *unsent; /* head..unsent: sent, awaiting an ack */
  size_t offset;                    /* bytes of `unsent` already written */
  size_t held;                      /* bytes queued */
  uint8_t in[4096];
  size_t inlen;
  uint64_t retry_at, backoff;
  int spill_fd;
  char spill_path[512];
  unsigned announced;               /* events in hello + schema documents queued */
  int refused;                      /* the collector said error: stop trying */
  uint64_t progress_ms;             /* a byte written or an ack read, last */
} L = {.fd = -1, .spill_fd = -1};

static void drop(struct doc *d) {
  L.held -= d->len;
  free(d->bytes);
  free(d);
}

static int parse_dest(const char *dest) {
  if (!strncmp(dest, "file:", 5)) {
    L.kind = K_FILE;
    snprintf(L.path, sizeof L.path, "%s", dest + 5);
    return 0;
  }
  if (!strncmp(dest, "unix:", 5)) {
    L.kind = K_UNIX;
    snprintf(L.path, sizeof L.path, "%s", dest + 5);
    return strlen(dest + 5) < sizeof((struct sockaddr_un *)0)->sun_path ? 0 : -1;
  }
  if (!strncmp(dest, "tcp://", 6)) {
    const char *hp = dest + 6, *colon = strrchr(hp, ':');
    if (!colon || colon == hp || !colon[1] || (size_t)(colon - hp) >= sizeof L.host)
      return -1;
    L.kind = K_TCP;
    snprintf(L.host, sizeof L.host, "%.*s", (int)(colon - hp), hp);
    snprintf(L.port, sizeof L.port, "%s", colon + 1);
    return 0;
  }
  return -1;
}

static int open_socket(void) {
  int fd = -1;
  if (L.kind == K_UNIX) {
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", L.path);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
      close(fd);
      fd = -1;
    }
  } else {
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res = NULL;
    if (getaddrinfo(L.host, L.port, &hints, &res) != 0)
      return -1;
    for (struct addrinfo *r = res; r && fd < 0; r = r->ai_next) {
      fd = socket(r->ai_family, r->ai_socktype | SOCK_CLOEXEC, r->ai_protocol);
      if (fd >= 0 && connect(fd, r->ai_addr, r->ai_addrlen) != 0) {
        close(fd);
        fd = -1;
      }
    }
    freeaddrinfo(res);
    int one = 1;
    if (fd >= 0)
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  if (fd >= 0)
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  return fd;
}

/* A new connection starts with a hello resuming at the first batch not yet
 * acknowledged; schema documents still queued are in that hello. */
static void start_connection(void) {
  int64_t resume = -1;
  for (struct doc **p = &L.head; *p;) {
    if ((*p)->seq == -1) { /* hello, schema, mark: the new hello announces */
      struct doc *d = *p;
      *p = d->next;
      drop(d);
      continue;
    }
    if (resume < 0 && (*p)->seq >= 0)
      resume = (*p)->seq;
    p = &(*p)->next;
  }
  if (resume < 0) /* every batch acknowledged (an `end` may wait) */
    resume = vg_stream_batches_sent();
  L.tail = NULL;
  for (struct doc *d = L.head; d; d = d->next)
    L.tail = d;
  size_t len;
  uint8_t *hello = vg_bson_hello(vg_stream_id, resume, 0, L.announced, &len);
  struct doc *h = calloc(1, sizeof *h);
  if (!hello || !h) {
    free(hello);
    free(h);
    return;
  }
  *h = (struct doc){.next = L.head, .bytes = hello, .len = len, .seq = -1};
  L.head = h;
  if (!L.tail)
    L.tail = h;
  L.held += len;
  L.unsent = L.head;
  L.offset = 0;
  L.inlen = 0;
  L.connected = 1;
  L.progress_ms = vg_stream_now_ms();
}

int vg_link_open(const char *dest) {
  if (parse_dest(dest) != 0) {
    fprintf(stderr, "vigil: stream destination %s: expected file:PATH, unix:PATH or "
                    "tcp://HOST:PORT; not streaming\n", dest);
    return -1;
  }
  if (L.kind == K_FILE) {
    L.fd = open(L.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (L.fd < 0) {
      fprintf(stderr, "vigil: stream destination %s: %s; not streaming\n", dest,
              strerror(errno));
      return -1;
    }
  }
  return 0;
}

static void write_queued(void);

static void enqueue(uint8_t *bytes, size_t len, int64_t seq) {
  struct doc *d = malloc(sizeof *d);
  if (!d) {
    free(bytes);
    return;
  }
  *d = (struct doc){.bytes = bytes, .len = len, .seq = seq};
  if (L.tail)
    L.tail->next = d;
  else
    L.head = d;
  L.tail = d;
  if (!L.unsent)
    L.unsent = d;
  L.held += len;
}

static int write_all(int fd, const uint8_t *p, size_t n) {
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

static int open_spill(void) {
  const char *dir = vg_stream_config.spill_dir;
  snprintf(L.spill_path, sizeof L.spill_path, "%s/vigil-stream-%d-%lld.bson", dir,
           (int)getpid(), (long long)vg_stream_now_ms());
  L.spill_fd = open(L.spill_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (L.spill_fd < 0) {
    fprintf(stderr, "vigil: stream: cannot create spill file %s: %s\n", L.spill_path,
            strerror(errno));
    return -1;
  }
  int64_t resume = vg_stream_batches_sent();
  for (struct doc *d = L.head; d; d = d->next)
    if (d->seq >= 0) {
      resume = d->seq;
      break;
    }
  size_t len;
  uint8_t *hello = vg_bson_hello(vg_stream_id, resume, 0, L.announced, &len);
  if (hello)
    write_all(L.spill_fd, hello, len);
  free(hello);
  fprintf(stderr, "vigil: stream: %s unreachable or slow; unacknowledged batches "
                  "go to %s (store them with: vigil collect --import %s)\n",
          vg_stream_config.dest, L.spill_path, L.spill_path);
  return 0;
}

/* Appends the oldest documents to the spill file until `keep` bytes are
 * left in memory: they leave the stream here (imported later).  A
 * document partly written to the socket stays: cutting it would corrupt
 * the stream; batches, and the end, go to the file (an import checks
 * completeness with the end); hellos, schemas and marks are dropped. */
static void spill(size_t keep) {
  if (L.spill_fd < 0 && open_spill() != 0)
    return;
  struct doc **p = &L.head, *prev = NULL;
  while (*p && L.held > keep) {
    struct doc *d = *p;
    if (d == L.unsent && L.offset > 0) {
      prev = d;
      p = &d->next;
      continue;
    }
    int keep_doc = d->seq >= 0 || d->seq == VG_DOC_END;
    if (keep_doc && write_all(L.spill_fd, d->bytes, d->len) != 0)
      return;
    *p = d->next;
    if (L.unsent == d)
      L.unsent = d->next;
    if (L.tail == d)
      L.tail = prev;
    drop(d);
  }
}

/* Whether the consumer should wait before queueing more: past the
 * retention budget a live collector that makes progress slows the
 * producers (lossless: they wait; discard: they count losses), and one
 * that is gone, or has made no progress for VIGIL_STREAM_STALL_MS, gets
 * the oldest batches spilled instead. */
int vg_link_full(void) {
  if (L.held <= vg_stream_config.retain_bytes || L.kind == K_FILE)
    return 0;
  uint64_t now = vg_stream_now_ms();
  if (L.connected && !L.refused && now - L.progress_ms < vg_stream_config.stall_ms)
    return 1;
  spill(vg_stream_config.retain_bytes / 2);
  return 0;
}

void vg_link_send(uint8_t *doc, size_t len, int64_t seq) {
  if (!doc)
    return;
  if (L.kind == K_FILE) {
    if (!L.connected)
      start_connection();
    enqueue(doc, len, seq);
    write_queued();
    return;
  }
  enqueue(doc, len, seq);
}

void vg_link_announce(unsigned to) {
  if (to <= L.announced)
    return;
  unsigned from = L.announced;
  L.announced = to;
  if (!L.connected) { /* the hello that opens the connection declares them */
    if (L.kind == K_FILE)
      start_connection();
    return;
  }
  size_t len;
  vg_link_send(vg_bson_schema(from, to, &len), len, -1);
}

static void disconnect(void) {
  if (L.fd >= 0)
    close(L.fd);
  L.fd = -1;
  L.connected = 0;
  L.unsent = L.head; /* everything not acknowledged goes again */
  L.offset = 0;
  L.backoff = L.backoff ? (L.backoff * 2 > 1000 ? 1000 : L.backoff * 2) : 10;
  L.retry_at = vg_stream_now_ms() + L.backoff;
}

/* Acknowledged: every batch up to `seq`, and the documents before them. */
static void acked(int64_t seq) {
  while (L.head && L.head != L.unsent && (L.head->seq < 0 || L.head->seq <= seq)) {
    struct doc *d = L.head;
    L.head = d->next;
    drop(d);
  }
  if (!L.head)
    L.tail = NULL;
  L.backoff = 0;
  L.progress_ms = vg_stream_now_ms();
}

static void read_replies(void) {
  for (;;) {
    ssize_t r = recv(L.fd, L.in + L.inlen, sizeof L.in - L.inlen, 0);
    if (r < 0 && (errno == EAGAIN || errno == EINTR))
      break;
    if (r <= 0) {
      disconnect();
      return;
    }
    L.inlen += (size_t)r;
    while (L.inlen >= 5) {
      uint32_t n = (uint32_t)L.in[0] | (uint32_t)L.in[1] << 8 | (uint32_t)L.in[2] << 16 |
                   (uint32_t)L.in[3] << 24;
      if (n < 5 || n > sizeof L.in) {
        fprintf(stderr, "vigil: stream: %s sent a malformed reply; reconnecting\n",
                vg_stream_config.dest);
        disconnect();
        return;
      }
      if (L.inlen < n)
        break;
      int64_t seq = -1;
      char msg[256];
      int kind = vg_bson_reply(L.in, n, &seq, msg, sizeof msg);
      memmove(L.in, L.in + n, L.inlen - n);
      L.inlen -= n;
      if (kind == 1) {
        acked(seq);
      } else if (kind == 2) {
        fprintf(stderr, "vigil: stream: %s refused the stream: %s\n",
                vg_stream_config.dest, msg);
        L.refused = 1;
        disconnect();
        return;
      }
    }
  }
}

static void write_queued(void) {
  while (L.unsent) {
    struct doc *d = L.unsent;
    ssize_t w = L.kind == K_FILE
                    ? write(L.fd, d->bytes + L.offset, d->len - L.offset)
                    : send(L.fd, d->bytes + L.offset, d->len - L.offset, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR)
      continue;
    if (w < 0 && errno == EAGAIN)
      return;
    if (w <= 0) {
      if (L.kind == K_FILE) {
        fprintf(stderr, "vigil: stream: writing %s: %s\n", L.path, strerror(errno));
        L.refused = 1;
      }
      disconnect();
      return;
    }
    L.offset += (size_t)w;
    L.progress_ms = vg_stream_now_ms();
    if (L.offset < d->len)
      continue;
    L.offset = 0;
    L.unsent = d->next;
    if (L.kind == K_FILE) /* a file acknowledges by being written */
      acked(INT64_MAX);
  }
}

void vg_link_poll(int timeout_ms, int wake_fd) {
  struct pollfd p[2] = {{.fd = wake_fd, .events = POLLIN}, {.fd = -1}};
  if (L.refused || L.kind == K_FILE) {
    if (!L.refused)
      write_queued();
    if (timeout_ms)
      poll(p, 1, timeout_ms);
    return;
  }
  if (!L.connected && vg_stream_now_ms() >= L.retry_at) {
    int fd = open_socket();
    if (fd >= 0) {
      L.fd = fd;
      start_connection();
    } else {
      disconnect();
    }
  }
  if (L.connected) {
    write_queued(); /* before sleeping: most writes complete at once */
    p[1] = (struct pollfd){.fd = L.fd, .events = POLLIN | (L.unsent ? POLLOUT : 0)};
  } else if (timeout_ms > (int)(L.retry_at - vg_stream_now_ms())) {
    timeout_ms = (int)(L.retry_at - vg_stream_now_ms());
  }
  if (poll(p, L.connected ? 2 : 1, timeout_ms < 0 ? 0 : timeout_ms) <= 0 || !L.connected)
    return;
  if (p[1].revents & (POLLOUT | POLLERR | POLLHUP))
    write_queued();
  if (L.connected && (p[1].revents & (POLLIN | POLLERR | POLLHUP)))
    read_replies();
}

/* Nothing waits for an ack: hellos, schemas and marks need none (a mark
 * queued last would otherwise hold a stopping producer for its whole
 * linger time). */
int vg_link_idle(void) {
  for (struct doc *d = L.head; d; d = d->next)
    if (d->seq >= 0 || d->seq == VG_DOC_END)
      return 0;
  return 1;
}

void vg_link_close(int spill_rest) {
  int batches = 0;
  for (struct doc *d = L.head; d; d = d->next)
    batches += d->seq >= 0 || d->seq == VG_DOC_END;
  if (spill_rest && batches)
    spill(0);
  if (L.fd >= 0)
    close(L.fd);
  if (L.spill_fd >= 0)
    close(L.spill_fd);
  L.fd = L.spill_fd = -1;
  L.connected = 0;
}

/* A forked child: the parent's queue and connection are the parent's; a
 * file destination becomes PATH.<pid> so the two never interleave. */
void vg_link_forget(void) {
  while (L.head) {
    struct doc *d = L.head;
    L.head = d->next;
    drop(d);
  }
  if (L.fd >= 0)
    close(L.fd);
  if (L.spill_fd >= 0)
    close(L.spill_fd);
  char path[256];
  snprintf(path, sizeof path, "%s", L.path);
  int kind = L.kind;
  memset(&L, 0, sizeof L);
  L.fd = L.spill_fd = -1;
  parse_dest(vg_stream_config.dest);
  if (kind == K_FILE) {
    snprintf(L.path, sizeof L.path, "%.200s.%d", path, (int)getpid());
    L.fd = open(L.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (L.fd < 0)
      L.refused = 1;
  }
}
