// A program streaming its events stays clean under memcheck (the
// producer's lock-free buffers, the consumer thread, libbson and the link;
// no definite leak), the stream it writes under valgrind is complete, and
// perf samples it.
// REQUIRES: valgrind
// RUN: %vigil-cc -g -O1 --vigil-trace=work %s -o %t -lpthread
// RUN: env VIGIL_STREAM=file:%t.bson valgrind -q --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite --suppressions=%root/valgrind/vigil.supp %t 20000 2>&1 | FileCheck %s --check-prefix=VG --allow-empty
// RUN: %check-stream %t.bson | FileCheck %s --check-prefix=STREAM
// RUN: env VIGIL_STREAM=file:%t.perf.bson perf record -q -o %t.perf -- %t 3000000 2>&1 | FileCheck %s --check-prefix=VG --allow-empty
// RUN: perf report -i %t.perf --stdio 2>&1 | FileCheck %s --check-prefix=PERF
#include <pthread.h>
#include <stdlib.h>

__attribute__((noinline)) long work(long i, long t) { return i + t; }
static long n;
static void *run(void *a) {
  long s = 0;
  for (long i = 0; i < n; i++)
    s += work(i, (long)a);
  return (void *)s;
}
int main(int argc, char **argv) {
  n = atol(argv[1]);
  pthread_t t[2];
  for (long i = 0; i < 2; i++)
    pthread_create(&t[i], 0, run, (void *)i);
  for (int i = 0; i < 2; i++)
    pthread_join(t[i], 0);
  return 0;
}
// VG-NOT: ==
// VG-NOT: ERROR SUMMARY
// STREAM: threads 2 batches {{[0-9]+}} events 80000 lost 0 produced 80000
// The traced code is sampled and named (the split's copy or the loop).
// PERF: {{[0-9.]+}}% {{.*}}stream-memcheck.c.tmp {{.*}}[.] {{(work|run)}}
