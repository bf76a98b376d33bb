/*
 * loadgen.c — a closed-loop HTTP/1.1 load generator for bench/atomic.
 *
 *   loadgen HOST PORT PATH CONNECTIONS REQUESTS [EXPECT_BYTES]
 *
 * CONNECTIONS threads, one keep-alive connection each, send REQUESTS GET
 * requests in all (split evenly), one at a time per connection: each reads
 * the whole response (status line, headers, Content-Length body) before
 * sending the next.  A connection the server closes is reopened and
 * counted.  The work is fixed (the number of requests), so the elapsed time
 * is the measure; latency is per request, from the send to the last byte.
 *
 * Prints one line:
 *   requests N errors E reconnects R elapsed_ns T rps X p50_us A p90_us B p99_us C bytes D
 * Exit status 0 if every request got a 200 (and EXPECT_BYTES of body, if
 * given), 1 otherwise.  Only HOST (meant to be 127.0.0.1) is contacted.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static const char *host, *path;
static int port;
static long expect_bytes = -1;

struct worker {
  pthread_t tid;
  long n, errors, reconnects, bytes;
  uint32_t *lat_us;
};

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int connect_to(void) {
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  if (inet_pton(AF_INET, host, &a.sin_addr) != 1)
    return -1;
  for (int tries = 0; tries < 200; tries++) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
      return -1;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct timeval tv = {.tv_sec = 10};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0)
      return fd;
    close(fd);
    usleep(10000); /* the server may still be starting: up to 2 s */
  }
  return -1;
}

/* One request on fd; returns the body length, -1 on a closed or broken
 * connection, -2 on a non-200 answer. */
static long one_request(int fd, const char *req, size_t reqlen, char *buf, size_t cap) {
  size_t off = 0;
  while (off < reqlen) {
    ssize_t w = send(fd, req + off, reqlen - off, MSG_NOSIGNAL);
    if (w <= 0)
      return -1;
    off += (size_t)w;
  }
  size_t have = 0;
  char *eoh = NULL;
  while (!eoh) {
    if (have + 1 >= cap)
      return -1;
    ssize_t r = recv(fd, buf + have, cap - 1 - have, 0);
    if (r <= 0)
      return -1;
    have += (size_t)r;
    buf[have] = 0;
    eoh = strstr(buf, "\r\n\r\n");
  }
  int status = atoi(buf + 9);
  long clen = 0;
  for (char *p = buf; p < eoh; p++)
    if ((p == buf || p[-1] == '\n') && !strncasecmp(p, "Content-Length:", 15))
      clen = strtol(p + 15, NULL, 10);
  size_t body = have - (size_t)(eoh + 4 - buf);
  while ((long)body < clen) {
    ssize_t r = recv(fd, buf, cap - 1, 0);
    if (r <= 0)
      return -1;
    body += (size_t)r;
  }
  return status == 200 ? clen : -2;
}

static void *run(void *arg) {
  struct worker *w = arg;
  char req[512];
  int reqlen = snprintf(req, sizeof req,
                        "GET %s HTTP/1.1\r\nHost: %s:%d\r\nUser-Agent: vigil-loadgen\r\n"
                        "Connection: keep-alive\r\n\r\n", path, host, port);
  size_t cap = 1 << 20;
  char *buf = malloc(cap);
  int fd = connect_to();
  for (long i = 0; i < w->n; i++) {
    if (fd < 0) {
      w->errors += w->n - i;
      break;
    }
    uint64_t t = now_ns();
    long got = one_request(fd, req, (size_t)reqlen, buf, cap);
    if (got == -1) { /* closed by the server: reopen and retry this request once */
      close(fd);
      fd = connect_to();
      w->reconnects++;
      if (fd >= 0)
        got = one_request(fd, req, (size_t)reqlen, buf, cap);
    }
    w->lat_us[i] = (uint32_t)((now_ns() - t) / 1000);
    if (got < 0 || (expect_bytes >= 0 && got != expect_bytes))
      w->errors++;
    else
      w->bytes += got;
  }
  if (fd >= 0)
    close(fd);
  free(buf);
  return NULL;
}

static int cmp(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  if (argc < 6) {
    fprintf(stderr, "usage: loadgen HOST PORT PATH CONNECTIONS REQUESTS [EXPECT_BYTES]\n");
    return 2;
  }
  host = argv[1];
  port = atoi(argv[2]);
  path = argv[3];
  int conns = atoi(argv[4]);
  long total = atol(argv[5]);
  if (argc > 6)
    expect_bytes = atol(argv[6]);
  if (conns < 1 || total < conns)
    return 2;
  struct worker *w = calloc((size_t)conns, sizeof *w);
  uint32_t *lat = calloc((size_t)total, sizeof *lat);
  long off = 0;
  for (int i = 0; i < conns; i++) {
    w[i].n = total / conns + (i < total % conns);
    w[i].lat_us = lat + off;
    off += w[i].n;
  }
  uint64_t t0 = now_ns();
  for (int i = 0; i < conns; i++)
    pthread_create(&w[i].tid, NULL, run, &w[i]);
  long errors = 0, reconnects = 0, bytes = 0;
  for (int i = 0; i < conns; i++) {
    pthread_join(w[i].tid, NULL);
    errors += w[i].errors;
    reconnects += w[i].reconnects;
    bytes += w[i].bytes;
  }
  uint64_t el = now_ns() - t0;
  qsort(lat, (size_t)total, sizeof *lat, cmp);
  printf("requests %ld errors %ld reconnects %ld elapsed_ns %llu rps %.1f p50_us %u p90_us %u "
         "p99_us %u bytes %ld\n", total, errors, reconnects, (unsigned long long)el,
         total / (el / 1e9), lat[total / 2], lat[total * 9 / 10], lat[total * 99 / 100], bytes);
  return errors ? 1 : 0;
}
