/*
 * Rebuild of Apache httpd bug 25520 (httpd 2.0.48), atomicity violation in
 * modules/loggers/mod_log_config.c: ap_buffered_log_writer().
 *
 * With "BufferedLogs On" every request's log line is appended to a
 * per-child buffer shared by all worker threads.  ap_buffered_log_writer()
 * reads buf->outcnt (the end of the buffered data), copies the line's
 * fields to &buf->outbuf[buf->outcnt], then stores buf->outcnt += len --
 * with no lock.  A second worker that appends in between (remote write of
 * buf->outcnt) makes both lines land at the same offset and one of the two
 * increments is lost: local read, remote write, local write (RWW).  A
 * flush_log() in between (remote write outcnt = 0) loses or garbles lines
 * the same way.  Observable failure: lines missing from / garbled in the
 * access log.
 *
 * The structure of ap_buffered_log_writer() and flush_log() follows the
 * original; apr_file_write() is modelled by an in-memory "file" whose
 * writes are atomic (as write(2) on an O_APPEND file is), so that the log
 * can be checked afterwards.  The log line is built from the strs[]/strl[]
 * fields the way ap_log_transaction() hands them over.
 *
 * Exit 0 if every request's line is in the log exactly once and no line is
 * garbled, 1 (one line on stderr) otherwise.  Optional argv[1]: a scale
 * factor for the number of requests (default 1).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOG_BUFSIZE 4096
#define NTHREADS 4
#define REQUESTS 20000 /* per thread, times the scale factor */
#define NFIELDS 14

/* apr_file_t: an append-only file; one write() is atomic. */
typedef struct {
  pthread_mutex_t lock;
  char *data;
  size_t len, cap;
} apr_file_t;

static void apr_file_write(apr_file_t *f, const char *s, size_t *n) {
  pthread_mutex_lock(&f->lock);
  if (f->len + *n > f->cap) {
    while (f->len + *n > f->cap) f->cap = f->cap ? 2 * f->cap : 1 << 20;
    f->data = realloc(f->data, f->cap);
    if (!f->data) abort();
  }
  memcpy(f->data + f->len, s, *n);
  f->len += *n;
  pthread_mutex_unlock(&f->lock);
}

typedef struct {
  apr_file_t *handle;
  size_t outcnt;
  char outbuf[LOG_BUFSIZE];
} buffered_log;

static void flush_log(buffered_log *buf) {
  if (buf->outcnt && buf->handle != NULL) {
    apr_file_write(buf->handle, buf->outbuf, &buf->outcnt);
    buf->outcnt = 0;
  }
}

/* The buggy function, as in httpd 2.0.48 (request_rec and pool dropped). */
static int ap_buffered_log_writer(void *handle, const char **strs, int *strl,
                                  int nelts, size_t len) {
  char *str;
  char *s;
  int i;
  buffered_log *buf = (buffered_log *)handle;

  if (len + buf->outcnt > LOG_BUFSIZE) {
    flush_log(buf);
  }
  if (len >= LOG_BUFSIZE) {
    size_t w;
    str = malloc(len + 1);
    for (i = 0, s = str; i < nelts; ++i) {
      memcpy(s, strs[i], strl[i]);
      s += strl[i];
    }
    w = len;
    apr_file_write(buf->handle, str, &w);
    free(str);
  } else {
    for (i = 0, s = &buf->outbuf[buf->outcnt]; i < nelts; ++i) {
      memcpy(s, strs[i], strl[i]);
      s += strl[i];
    }
    buf->outcnt += len;
  }
  return 0;
}

static apr_file_t logfile = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0};
static buffered_log *the_log;
static long nrequests;

/* A worker thread: serve requests, log each one (ap_log_transaction). */
static void *worker(void *arg) {
  long tid = (long)arg;
  char request[96], bytes[16], when[40];
  for (long r = 0; r < nrequests; r++) {
    snprintf(request, sizeof request, "GET /docs/page%ld.html?t=%ld&r=%ld HTTP/1.0",
             r % 97, tid, r);
    snprintf(bytes, sizeof bytes, "%ld", 1000 + (r * 37) % 9000);
    snprintf(when, sizeof when, "[10/Oct/2003:13:%02ld:%02ld +0000]", (r / 60) % 60,
             r % 60);
    const char *strs[NFIELDS] = {"10.0.0.7", " ", "-", " ", "-", " ", when, " \"",
                                 request, "\" ", "200", " ", bytes, "\n"};
    int strl[NFIELDS];
    size_t len = 0;
    for (int i = 0; i < NFIELDS; i++) len += (size_t)(strl[i] = (int)strlen(strs[i]));
    ap_buffered_log_writer(the_log, strs, strl, NFIELDS, len);
  }
  return NULL;
}

int main(int argc, char **argv) {
  double scale = argc > 1 ? atof(argv[1]) : 1; /* may be a fraction, e.g. 0.1 */
  if (!(scale > 0)) scale = 1;
  nrequests = REQUESTS * scale;
  if (nrequests < 1) nrequests = 1;
  /* Slack after the struct: when the race hits, a line can be copied past
   * outbuf's end (it overflowed into the heap in httpd too); keep that
   * inside our allocation so the failure shows as a wrong log. */
  the_log = calloc(1, sizeof(buffered_log) + 64 * 1024);
  the_log->handle = &logfile;

  pthread_t th[NTHREADS];
  for (long t = 0; t < NTHREADS; t++) pthread_create(&th[t], NULL, worker, (void *)t);
  for (int t = 0; t < NTHREADS; t++) pthread_join(th[t], NULL);
  flush_log(the_log); /* child exit */

  /* Check the access log: every (t, r) exactly once, no garbled line. */
  unsigned char *seen = calloc((size_t)NTHREADS * nrequests, 1);
  long good = 0, garbled = 0, dup = 0;
  char *p = logfile.data, *end = logfile.data + logfile.len;
  while (p < end) {
    char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
    char line[256];
    long t, r, page, b;
    int mm, ss, consumed = 0;
    if (n < sizeof line) {
      memcpy(line, p, n);
      line[n] = 0;
    } else {
      line[0] = 0;
    }
    if (n < sizeof line &&
        sscanf(line,
               "10.0.0.7 - - [10/Oct/2003:13:%d:%d +0000] \"GET /docs/page%ld.html?t=%ld&r=%ld "
               "HTTP/1.0\" 200 %ld%n",
               &mm, &ss, &page, &t, &r, &b, &consumed) == 6 &&
        (size_t)consumed == n && t >= 0 && t < NTHREADS && r >= 0 && r < nrequests &&
        page == r % 97 && b == 1000 + (r * 37) % 9000) {
      if (seen[t * nrequests + r]++) dup++;
      else good++;
    } else {
      garbled++;
    }
    p += n + 1;
  }
  long total = NTHREADS * nrequests;
  if (good != total || garbled || dup) {
    fprintf(stderr,
            "apache-25520: access log corrupted: %ld of %ld lines missing, %ld garbled, "
            "%ld duplicated\n",
            total - good, total, garbled, dup);
    return 1;
  }
  return 0;
}
