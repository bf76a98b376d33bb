/*
 * Correct program (no atomicity violation): a small account table guarded
 * by a pthread_rwlock.  Writers move money between accounts (read-modify-
 * write of two balances under the write lock); readers sum all balances
 * under the read lock and check that the total is invariant.  Exit 0 on
 * success.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NACC 16
#define NWRITERS 2
#define NREADERS 2
#define TRANSFERS 100000 /* per writer */
#define AUDITS 20000     /* per reader */
#define INITIAL 1000

static pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;
static long balance[NACC];
static long bad_audits;
static pthread_mutex_t bad_mu = PTHREAD_MUTEX_INITIALIZER;

static void *writer(void *arg) {
  unsigned seed = (unsigned)(long)arg * 2654435761u + 1;
  for (long i = 0; i < TRANSFERS; i++) {
    seed = seed * 1103515245u + 12345u;
    int from = (int)(seed >> 8) % NACC, to = (int)(seed >> 16) % NACC;
    long amount = (long)(seed >> 24) % 50;
    pthread_rwlock_wrlock(&lock);
    if (balance[from] >= amount) {
      balance[from] -= amount;
      balance[to] += amount;
    }
    pthread_rwlock_unlock(&lock);
  }
  return NULL;
}

static void *reader(void *arg) {
  (void)arg;
  for (long i = 0; i < AUDITS; i++) {
    long total = 0;
    pthread_rwlock_rdlock(&lock);
    for (int a = 0; a < NACC; a++) total += balance[a];
    pthread_rwlock_unlock(&lock);
    if (total != (long)NACC * INITIAL) {
      pthread_mutex_lock(&bad_mu);
      bad_audits++;
      pthread_mutex_unlock(&bad_mu);
    }
  }
  return NULL;
}

int main(void) {
  for (int a = 0; a < NACC; a++) balance[a] = INITIAL;
  pthread_t w[NWRITERS], r[NREADERS];
  for (long i = 0; i < NWRITERS; i++) pthread_create(&w[i], NULL, writer, (void *)i);
  for (long i = 0; i < NREADERS; i++) pthread_create(&r[i], NULL, reader, (void *)i);
  for (int i = 0; i < NWRITERS; i++) pthread_join(w[i], NULL);
  for (int i = 0; i < NREADERS; i++) pthread_join(r[i], NULL);
  long total = 0;
  for (int a = 0; a < NACC; a++) {
    if (balance[a] < 0) {
      fprintf(stderr, "rwlock: account %d negative\n", a);
      return 1;
    }
    total += balance[a];
  }
  if (bad_audits || total != (long)NACC * INITIAL) {
    fprintf(stderr, "rwlock: %ld audits saw a wrong total; final total %ld\n", bad_audits, total);
    return 1;
  }
  return 0;
}
