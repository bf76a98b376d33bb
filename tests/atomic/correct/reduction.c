/*
 * Correct program (no atomicity violation): a parallel reduction.  Each
 * thread sums its slice of a shared read-only array into its own partial
 * (a padded per-thread slot, written only by that thread); main combines
 * the partials after pthread_join.  Checks the sum and the maximum against
 * a sequential computation.  Exit 0 on success.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NTHREADS 4
#define N (1L << 21)

static int *data;
static struct {
  long sum;
  int max;
  char pad[64 - sizeof(long) - sizeof(int)];
} partial[NTHREADS];

static void *work(void *arg) {
  long id = (long)arg;
  long lo = N * id / NTHREADS, hi = N * (id + 1) / NTHREADS;
  long s = 0;
  int m = data[lo];
  for (long i = lo; i < hi; i++) {
    s += data[i];
    if (data[i] > m) m = data[i];
  }
  partial[id].sum = s;
  partial[id].max = m;
  return NULL;
}

int main(void) {
  data = malloc(N * sizeof *data);
  unsigned x = 12345;
  for (long i = 0; i < N; i++) {
    x = x * 1664525u + 1013904223u;
    data[i] = (int)(x >> 12) % 100000;
  }
  pthread_t th[NTHREADS];
  for (long t = 0; t < NTHREADS; t++) pthread_create(&th[t], NULL, work, (void *)t);
  for (int t = 0; t < NTHREADS; t++) pthread_join(th[t], NULL);
  long sum = 0;
  int max = partial[0].max;
  for (int t = 0; t < NTHREADS; t++) {
    sum += partial[t].sum;
    if (partial[t].max > max) max = partial[t].max;
  }
  long want = 0;
  int wmax = data[0];
  for (long i = 0; i < N; i++) {
    want += data[i];
    if (data[i] > wmax) wmax = data[i];
  }
  free(data);
  if (sum != want || max != wmax) {
    fprintf(stderr, "reduction: sum %ld max %d, want %ld max %d\n", sum, max, want, wmax);
    return 1;
  }
  return 0;
}
