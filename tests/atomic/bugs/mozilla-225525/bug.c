/*
 * Rebuild of Mozilla bug 225525 (Firefox/NSS), the atomicity violation of
 * Figure 1 of the Kivati paper (EuroSys'10):
 *
 *     void func(void) {
 *       if (!shared_ptr)
 *         shared_ptr = another_function();
 *       ...
 *
 * A lazily created shared object: two threads both see shared_ptr == NULL
 * (local read, remote write, local write: RWW), both build the object, the
 * second store overwrites the first -- the first object leaks and the
 * threads that already use it work on an object nobody else sees (the
 * update is lost).
 *
 * Faithfulness: the paper gives only this simplified form; the original
 * file/function is not named there and could not be checked.  The rebuild
 * makes another_function() build something realistic (a lock and a hash
 * table, like NSS's lazily created lists/locks) and runs the lazy
 * initialisation once per "session" (shared_ptr is reset between rounds,
 * as a shutdown/re-initialisation does).  The round hand-out uses GCC
 * __atomic builtins on harness variables only.
 *
 * Exit 0 if another_function() ran exactly once per round, 1 otherwise.
 * Optional argv[1]: a scale factor for the number of rounds.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NTHREADS 2
#define ROUNDS 20000
#define NBUCKETS 64

typedef struct entry {
  struct entry *next;
  char name[24];
  int id;
} entry;

typedef struct {
  pthread_mutex_t lock;
  entry *buckets[NBUCKETS];
  int count;
} table_t;

static table_t *shared_ptr;
static int created_this_round; /* harness */
static long double_inits;

static unsigned hash(const char *s) {
  unsigned h = 2166136261u;
  while (*s) h = (h ^ (unsigned char)*s++) * 16777619u;
  return h;
}

static table_t *another_function(void) {
  table_t *t = calloc(1, sizeof *t);
  pthread_mutex_init(&t->lock, NULL);
  /* populate with the built-in entries */
  for (int i = 0; i < 8; i++) {
    entry *e = malloc(sizeof *e);
    snprintf(e->name, sizeof e->name, "builtin-%d", i);
    e->id = i;
    unsigned b = hash(e->name) % NBUCKETS;
    e->next = t->buckets[b];
    t->buckets[b] = e;
    t->count++;
  }
  __atomic_add_fetch(&created_this_round, 1, __ATOMIC_ACQ_REL);
  return t;
}

static void add_entry(table_t *t, const char *name, int id) {
  entry *e = malloc(sizeof *e);
  snprintf(e->name, sizeof e->name, "%s", name);
  e->id = id;
  unsigned b = hash(name) % NBUCKETS;
  pthread_mutex_lock(&t->lock);
  e->next = t->buckets[b];
  t->buckets[b] = e;
  t->count++;
  pthread_mutex_unlock(&t->lock);
}

/* The buggy function (Figure 1). */
static void func(int tid, long round) {
  if (!shared_ptr)
    shared_ptr = another_function();

  char name[24];
  snprintf(name, sizeof name, "t%d-r%ld", tid, round);
  add_entry(shared_ptr, name, tid);
}

static void free_table(table_t *t) {
  for (int b = 0; b < NBUCKETS; b++)
    for (entry *e = t->buckets[b], *n; e; e = n) {
      n = e->next;
      free(e);
    }
  pthread_mutex_destroy(&t->lock);
  free(t);
}

static int arrived, departed; /* harness: round barrier */
static long nrounds;

static void spin_until(int *var, int value) {
  int n = 0;
  while (__atomic_load_n(var, __ATOMIC_ACQUIRE) < value)
    if (++n % 64 == 0) sched_yield();
}

static void *thread(void *arg) {
  int tid = (int)(long)arg;
  for (long r = 0; r < nrounds; r++) {
    __atomic_add_fetch(&arrived, 1, __ATOMIC_ACQ_REL);
    spin_until(&arrived, (int)((r + 1) * NTHREADS));
    func(tid, r);
    __atomic_add_fetch(&departed, 1, __ATOMIC_ACQ_REL);
    spin_until(&departed, (int)((r + 1) * NTHREADS));
    if (tid == 0) {
      /* shutdown: check and reset for the next session */
      int n = __atomic_load_n(&created_this_round, __ATOMIC_ACQUIRE);
      if (n != 1) double_inits++;
      free_table(shared_ptr); /* the other table(s), if any, leaked */
      shared_ptr = NULL;
      __atomic_store_n(&created_this_round, 0, __ATOMIC_RELEASE);
    }
    /* everybody waits for the reset: a third barrier */
    static int reset;
    if (tid == 0) __atomic_store_n(&reset, (int)(r + 1), __ATOMIC_RELEASE);
    else spin_until(&reset, (int)(r + 1));
  }
  return NULL;
}

int main(int argc, char **argv) {
  double scale = argc > 1 ? atof(argv[1]) : 1; /* may be a fraction, e.g. 0.1 */
  if (!(scale > 0)) scale = 1;
  nrounds = ROUNDS * scale;
  if (nrounds < 1) nrounds = 1;
  pthread_t th[NTHREADS];
  for (long t = 0; t < NTHREADS; t++) pthread_create(&th[t], NULL, thread, (void *)t);
  for (int t = 0; t < NTHREADS; t++) pthread_join(th[t], NULL);
  if (double_inits) {
    fprintf(stderr, "mozilla-225525: shared object created more than once in %ld of %ld "
                    "rounds (one copy leaked, its updates lost)\n",
            double_inits, nrounds);
    return 1;
  }
  return 0;
}
