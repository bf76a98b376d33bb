// Discard mode: with tiny buffers a burst loses events, and every loss is
// counted: per thread, stored + lost = produced, nothing missing.
// RUN: %vigil-cc -O2 --vigil-trace=work %s -o %t -lpthread
// RUN: rm -rf %t.store
// RUN: %collect run --store %t.store --streams 1 --env VIGIL_STREAM_MODE=discard --env VIGIL_STREAM_BUFFER=256 '%t 200000 4' | FileCheck %s --check-prefix=OUT
// RUN: %collect summary --store %t.store | FileCheck %s --check-prefix=SUM
#include <pthread.h>
#include <stdlib.h>

__attribute__((noinline)) long work(long i, long t) { return t; }
static long n;
static void *run(void *a) {
  for (long i = 0; i < n; i++)
    work(i, (long)a);
  return 0;
}
int main(int argc, char **argv) {
  n = atol(argv[1]);
  int k = atoi(argv[2]);
  pthread_t t[16];
  for (long i = 0; i < k; i++)
    pthread_create(&t[i], 0, run, (void *)i);
  for (int i = 0; i < k; i++)
    pthread_join(t[i], 0);
  return 0;
}
// OUT: producer exit 0
// OUT: collector exit 0
// SUM: producer discard.c.tmp mode discard ended True complete True stored {{[0-9]+}} lost {{[1-9][0-9]*}} produced 1600000 missing 0 threads 4
// SUM: totals producers 1 complete 1
