/*
 * Rebuild of Apache httpd bug 21287 (httpd 2.0.4x), atomicity violation in
 * modules/experimental/mod_mem_cache.c: decrement_refcount().
 *
 * A cached object is shared by the requests serving it; each request's pool
 * cleanup calls decrement_refcount(), and the object is freed
 * (cleanup_cache_object) by the one that drops the last reference once the
 * object has been marked for cleanup (it was evicted/replaced meanwhile).
 * The buggy code (USE_ATOMICS branch) decremented and then re-read:
 *
 *     apr_atomic_dec(&obj->refcount);
 *     if (!obj->refcount) { if (obj->cleanup) cleanup_cache_object(obj); }
 *
 * Two requests releasing the object together: local write (the decrement),
 * remote write (the other decrement), local read (the test) -- WWR: both see
 * 0 and the object is cleaned up twice (double free).
 *
 * Faithfulness: the shared variable is accessed with plain loads/stores
 * here (the original's first access was apr_atomic_dec, an atomic RMW), so
 * the decrement itself can also lose an update (read, remote write, write:
 * RWW) and the object is then never freed (leak).  Both are the same
 * missing atomicity of obj->refcount in decrement_refcount(); the asm
 * barrier stands for the barrier apr_atomic_dec implied, which forced the
 * re-read of obj->refcount in the original.  The harness (object hand-out
 * and the round barrier) uses GCC __atomic builtins on its own variables.
 *
 * Exit 0 if every object was cleaned up exactly once, 1 otherwise.
 * Optional argv[1]: a scale factor for the number of rounds.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NTHREADS 2 /* requests sharing one cached object */
#define ROUNDS 20000
#define BODY 1024
#define OBJ_LIVE 0x4c495645u  /* "LIVE" */
#define OBJ_FREED 0xdeadbeefu

typedef unsigned int apr_uint32_t;

typedef struct mem_cache_object {
  char *m;
  size_t m_len;
} mem_cache_object_t;

typedef struct cache_object {
  char *key;
  int complete;
  int cleanup;
  apr_uint32_t refcount;
  void *vobj;
  unsigned magic; /* canary, stands for the allocator noticing a double free */
} cache_object_t;

static int nfreed_this_round; /* harness: cleanups of the current object */
static long double_frees, leaks;

static void cleanup_cache_object(cache_object_t *obj) {
  mem_cache_object_t *mobj = (mem_cache_object_t *)obj->vobj;
  /* harness: check-and-poison atomically so that a double cleanup is
   * reported instead of corrupting malloc */
  if (__atomic_exchange_n(&obj->magic, OBJ_FREED, __ATOMIC_ACQ_REL) != OBJ_LIVE) {
    __atomic_add_fetch(&nfreed_this_round, 1, __ATOMIC_ACQ_REL);
    return; /* the original freed obj->key, mobj->m, mobj a second time */
  }
  __atomic_add_fetch(&nfreed_this_round, 1, __ATOMIC_ACQ_REL);
  free(obj->key);
  free(mobj->m);
  free(mobj);
}

/* The buggy function (httpd 2.0.4x, USE_ATOMICS branch). */
static int decrement_refcount(void *arg) {
  cache_object_t *obj = (cache_object_t *)arg;

  /* Cleanup the cache object */
  obj->refcount--;                      /* apr_atomic_dec(&obj->refcount); */
  __asm__ __volatile__("" ::: "memory"); /* apr_atomic_dec's barrier */
  if (!obj->refcount) {
    if (obj->cleanup) {
      cleanup_cache_object(obj);
    }
  }
  return 0;
}

static cache_object_t *current;  /* harness: the object of this round */
static int arrived, departed;    /* harness: round barrier */
static long nrounds;

static void spin_until(int *var, int value) {
  int n = 0;
  while (__atomic_load_n(var, __ATOMIC_ACQUIRE) < value)
    if (++n % 64 == 0) sched_yield();
}

/* A request serving the cached object, then releasing it. */
static void *request(void *arg) {
  long tid = (long)arg;
  char out[BODY];
  for (long r = 0; r < nrounds; r++) {
    if (tid == 0) {
      /* The object is created, cached, handed to NTHREADS requests, and
       * evicted from the cache (cleanup = 1) while they are in flight. */
      cache_object_t *obj = calloc(1, sizeof *obj);
      mem_cache_object_t *mobj = calloc(1, sizeof *mobj);
      obj->key = malloc(32);
      snprintf(obj->key, 32, "/docs/page%ld.html", r);
      mobj->m = malloc(BODY);
      memset(mobj->m, 'a' + r % 26, BODY);
      mobj->m_len = BODY;
      obj->vobj = mobj;
      obj->complete = 1;
      obj->cleanup = 1;
      obj->refcount = NTHREADS;
      obj->magic = OBJ_LIVE;
      nfreed_this_round = 0;
      __atomic_store_n(&current, obj, __ATOMIC_RELEASE);
    }
    /* round barrier: everybody has the object */
    __atomic_add_fetch(&arrived, 1, __ATOMIC_ACQ_REL);
    spin_until(&arrived, (int)((r + 1) * NTHREADS));
    cache_object_t *obj = __atomic_load_n(&current, __ATOMIC_ACQUIRE);
    /* serve it: copy the cached body to the response */
    memcpy(out, ((mem_cache_object_t *)obj->vobj)->m, BODY);
    __asm__ __volatile__("" : : "r"(out) : "memory");
    /* end of request: pool cleanup */
    decrement_refcount(obj);
    __atomic_add_fetch(&departed, 1, __ATOMIC_ACQ_REL);
    if (tid == 0) {
      spin_until(&departed, (int)((r + 1) * NTHREADS));
      int n = __atomic_load_n(&nfreed_this_round, __ATOMIC_ACQUIRE);
      if (n > 1) double_frees++;
      if (n == 0) {
        leaks++;
        free(obj->key);
        free(((mem_cache_object_t *)obj->vobj)->m);
        free(obj->vobj);
      }
      free(obj);
    } else {
      /* wait for the check before the next round reuses `current` */
      spin_until(&departed, (int)((r + 1) * NTHREADS));
    }
  }
  return NULL;
}

int main(int argc, char **argv) {
  double scale = argc > 1 ? atof(argv[1]) : 1; /* may be a fraction, e.g. 0.1 */
  if (!(scale > 0)) scale = 1;
  nrounds = ROUNDS * scale;
  if (nrounds < 1) nrounds = 1;
  pthread_t th[NTHREADS];
  for (long t = 0; t < NTHREADS; t++) pthread_create(&th[t], NULL, request, (void *)t);
  for (int t = 0; t < NTHREADS; t++) pthread_join(th[t], NULL);
  if (double_frees || leaks) {
    fprintf(stderr,
            "apache-21287: cache objects cleaned up twice (double free): %ld, never (leak): "
            "%ld, of %ld\n",
            double_frees, leaks, nrounds);
    return 1;
  }
  return 0;
}
