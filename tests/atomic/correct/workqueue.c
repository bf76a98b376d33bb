/*
 * Correct program (no atomicity violation): a bounded work queue protected
 * by one mutex with two condition variables (not_empty / not_full),
 * 2 producers and 3 consumers.  Every shared access is under the mutex.
 * Checks that every item was consumed exactly once and the sum matches.
 * Exit 0 on success.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define CAP 64
#define NPROD 2
#define NCONS 3
#define ITEMS 50000 /* per producer */

static struct {
  pthread_mutex_t mu;
  pthread_cond_t not_empty, not_full;
  long buf[CAP];
  int head, tail, count;
  int producers_left;
} q = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, {0}, 0, 0, 0, NPROD};

static unsigned char seen[NPROD * ITEMS];
static long consumed_sum[NCONS], consumed_n[NCONS];

static void put(long v) {
  pthread_mutex_lock(&q.mu);
  while (q.count == CAP) pthread_cond_wait(&q.not_full, &q.mu);
  q.buf[q.tail] = v;
  q.tail = (q.tail + 1) % CAP;
  q.count++;
  pthread_cond_signal(&q.not_empty);
  pthread_mutex_unlock(&q.mu);
}

/* Returns 0 when the queue is drained and all producers are done. */
static int get(long *v) {
  pthread_mutex_lock(&q.mu);
  while (q.count == 0 && q.producers_left > 0) pthread_cond_wait(&q.not_empty, &q.mu);
  if (q.count == 0) {
    pthread_mutex_unlock(&q.mu);
    return 0;
  }
  *v = q.buf[q.head];
  q.head = (q.head + 1) % CAP;
  q.count--;
  pthread_cond_signal(&q.not_full);
  pthread_mutex_unlock(&q.mu);
  return 1;
}

static void *producer(void *arg) {
  long id = (long)arg;
  for (long i = 0; i < ITEMS; i++) put(id * ITEMS + i);
  pthread_mutex_lock(&q.mu);
  q.producers_left--;
  pthread_cond_broadcast(&q.not_empty);
  pthread_mutex_unlock(&q.mu);
  return NULL;
}

static void *consumer(void *arg) {
  long id = (long)arg;
  long v;
  while (get(&v)) {
    seen[v]++; /* each index is written by exactly one consumer */
    consumed_sum[id] += v;
    consumed_n[id]++;
  }
  return NULL;
}

int main(void) {
  pthread_t p[NPROD], c[NCONS];
  for (long i = 0; i < NCONS; i++) pthread_create(&c[i], NULL, consumer, (void *)i);
  for (long i = 0; i < NPROD; i++) pthread_create(&p[i], NULL, producer, (void *)i);
  for (int i = 0; i < NPROD; i++) pthread_join(p[i], NULL);
  for (int i = 0; i < NCONS; i++) pthread_join(c[i], NULL);
  long n = 0, sum = 0;
  for (int i = 0; i < NCONS; i++) n += consumed_n[i], sum += consumed_sum[i];
  long total = (long)NPROD * ITEMS;
  long want = total * (total - 1) / 2;
  for (long i = 0; i < total; i++)
    if (seen[i] != 1) {
      fprintf(stderr, "workqueue: item %ld consumed %d times\n", i, seen[i]);
      return 1;
    }
  if (n != total || sum != want) {
    fprintf(stderr, "workqueue: consumed %ld items sum %ld, want %ld sum %ld\n", n, sum, total, want);
    return 1;
  }
  return 0;
}
