// The collector is killed (SIGKILL) while a lossless producer streams, and
// started again on the same port and store: the producer reconnects with
// back-off, resends what was not acknowledged, and the store ends up with
// every event exactly once.
// REQUIRES: duckdb
// RUN: %vigil-cc -O2 --vigil-trace=work %s -o %t -lpthread
// RUN: rm -rf %t.store
// RUN: %collect restart --store %t.store --kill-after 0.4 'env VIGIL_STREAM_BUFFER=4096 %t 300000 2' | FileCheck %s --check-prefix=OUT
// RUN: %collect summary --store %t.store | FileCheck %s --check-prefix=SUM
// RUN: %collect sql --store %t.store "SELECT count(*), count(DISTINCT (thread, tseq)) FROM events" | FileCheck %s --check-prefix=ONCE
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) long work(long i, long t) { return t; }
static long n;
static void *run(void *a) {
  struct timespec pause = {0, 2000};
  for (long i = 0; i < n; i++) {
    work(i, (long)a);
    if (i % 256 == 0)
      nanosleep(&pause, 0); /* a run of about a second: the kill lands inside it */
  }
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
// OUT: collector killed
// OUT: producer exit 0
// OUT: collector exit 0
// SUM: producer restart.c.tmp mode lossless ended True complete True stored 1200000 lost 0 produced 1200000 missing 0 threads 2
// ONCE: 1200000 1200000
