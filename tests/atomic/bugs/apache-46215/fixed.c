/*
 * FIXED version (see bug.c for the bug): the busy decrement is done with the balancer
 * mutex held (upstream later made busy an atomic counter, httpd PR #383).
 *
 * Rebuild of Apache httpd bug 46215 (mod_proxy_balancer, httpd 2.2.x;
 * the same code is in 2.4's proxy_balancer_post_request), atomicity
 * violation in modules/proxy/mod_proxy_balancer.c:
 * proxy_balancer_post_request().
 *
 * With lbmethod=bybusyness each balancer member has a shared "busy" count:
 * find_best_bybusyness() picks the member with the fewest requests in
 * flight and increments its busy count (under the balancer mutex, in
 * proxy_balancer_pre_request); when the request is done
 * proxy_balancer_post_request() releases the mutex and then does
 *
 *     if (worker && worker->s->busy)
 *         worker->s->busy--;
 *
 * unlocked.  Another request finishing on the same member between the test
 * and the decrement (or between the decrement's load and store) -- local
 * read, remote write, local write (RWW) -- loses a decrement, or, when the
 * test saw 1, both decrement and the unsigned count wraps to SIZE_MAX.  The
 * busy counts then drift away from the real number of requests in flight
 * and bybusyness stops balancing (upstream: "prevent busy value increasing
 * and preventing bybusyness balancer working correctly", httpd PR #383;
 * the race is Figure 8 of the OWL paper, DSN'18).
 *
 * The structure follows the original (worker->s is the shared-memory
 * proxy_worker_shared; the balancer mutex is PROXY_THREAD_LOCK); the
 * backend round trip is modelled by formatting the request and hashing a
 * response body.
 *
 * Exit 0 if every member's busy count is back to 0 when all requests are
 * done, 1 otherwise.  Optional argv[1]: a scale factor for the number of
 * requests.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NTHREADS 4
#define NMEMBERS 2
#define REQUESTS 50000 /* per thread, times the scale factor */

typedef size_t apr_size_t;

typedef struct {
  apr_size_t busy;    /* busyness factor */
  apr_size_t elected; /* number of times the worker was elected */
  int lbfactor;
  int lbstatus;
} proxy_worker_shared;

typedef struct {
  const char *name;
  proxy_worker_shared *s;
} proxy_worker;

typedef struct {
  pthread_mutex_t mutex; /* PROXY_THREAD_LOCK(balancer) */
  proxy_worker *workers;
  int nworkers;
} proxy_balancer;

static proxy_balancer balancer = {PTHREAD_MUTEX_INITIALIZER, NULL, 0};

/* mod_lbmethod_bybusyness / 2.2's find_best_bybusyness (called locked). */
static proxy_worker *find_best_bybusyness(proxy_balancer *b) {
  proxy_worker *mycandidate = NULL;
  int total_factor = 0;
  for (int i = 0; i < b->nworkers; i++) {
    proxy_worker *w = &b->workers[i];
    w->s->lbstatus += w->s->lbfactor;
    total_factor += w->s->lbfactor;
    if (!mycandidate || w->s->busy < mycandidate->s->busy ||
        (w->s->busy == mycandidate->s->busy && w->s->lbstatus > mycandidate->s->lbstatus))
      mycandidate = w;
  }
  if (mycandidate) {
    mycandidate->s->lbstatus -= total_factor;
    mycandidate->s->elected++;
    mycandidate->s->busy++;
  }
  return mycandidate;
}

static proxy_worker *proxy_balancer_pre_request(proxy_balancer *b) {
  pthread_mutex_lock(&b->mutex);
  proxy_worker *w = find_best_bybusyness(b);
  pthread_mutex_unlock(&b->mutex);
  return w;
}

/* The buggy function. */
static int proxy_balancer_post_request(proxy_worker *worker, proxy_balancer *b) {
  pthread_mutex_lock(&b->mutex);
  /* TODO: placeholder for post_request actions */
  if (worker && worker->s->busy)
    worker->s->busy--;
  pthread_mutex_unlock(&b->mutex);

  return 0;
}

static long nrequests;

static void *client(void *arg) {
  long tid = (long)arg;
  char req[128];
  unsigned long h = 5381;
  for (long r = 0; r < nrequests; r++) {
    proxy_worker *w = proxy_balancer_pre_request(&balancer);
    /* the proxied round trip: build the request, "receive" and hash a body */
    int n = snprintf(req, sizeof req, "GET /app/item?id=%ld&client=%ld HTTP/1.1\r\nHost: %s\r\n",
                     r, tid, w->name);
    for (int i = 0; i < n; i++) h = h * 33 + (unsigned char)req[i];
    proxy_balancer_post_request(w, &balancer);
  }
  return (void *)h;
}

int main(int argc, char **argv) {
  double scale = argc > 1 ? atof(argv[1]) : 1; /* may be a fraction, e.g. 0.1 */
  if (!(scale > 0)) scale = 1;
  nrequests = REQUESTS * scale;
  if (nrequests < 1) nrequests = 1;
  static proxy_worker_shared shm[NMEMBERS];
  static proxy_worker members[NMEMBERS];
  static const char *names[NMEMBERS] = {"backend1:8080", "backend2:8080"};
  for (int i = 0; i < NMEMBERS; i++) {
    shm[i].lbfactor = 1;
    members[i].name = names[i];
    members[i].s = &shm[i];
  }
  balancer.workers = members;
  balancer.nworkers = NMEMBERS;

  pthread_t th[NTHREADS];
  for (long t = 0; t < NTHREADS; t++) pthread_create(&th[t], NULL, client, (void *)t);
  for (int t = 0; t < NTHREADS; t++) pthread_join(th[t], NULL);

  int bad = 0;
  char msg[256] = "";
  size_t off = 0;
  for (int i = 0; i < NMEMBERS; i++) {
    if (shm[i].busy != 0) bad = 1;
    off += (size_t)snprintf(msg + off, sizeof msg - off, " %s busy=%zu", names[i], shm[i].busy);
  }
  if (bad) {
    fprintf(stderr, "apache-46215: busy counts wrong with no request in flight:%s\n", msg);
    return 1;
  }
  return 0;
}
