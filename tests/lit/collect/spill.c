// No collector at all: a lossless producer keeps its batches, retries, and
// at exit spills them to a file it names; `vigil collect --import` stores
// that file, and the end it holds proves the recording complete.
// RUN: %vigil-cc -O2 --vigil-trace=work %s -o %t
// RUN: rm -rf %t.store %t.spill && mkdir %t.spill
// RUN: env VIGIL_STREAM=tcp://127.0.0.1:1 VIGIL_STREAM_LINGER_MS=300 VIGIL_STREAM_SPILL_DIR=%t.spill %t 50000 2>&1 | FileCheck %s --check-prefix=PROD
// RUN: vigil collect --import %t.spill/*.bson --store %t.store
// RUN: %collect summary --store %t.store | FileCheck %s --check-prefix=SUM
#include <stdlib.h>

__attribute__((noinline)) long work(long i) { return i; }
int main(int argc, char **argv) {
  long n = atol(argv[1]);
  for (long i = 0; i < n; i++)
    work(i);
  return 0;
}
// PROD: vigil: stream: tcp://127.0.0.1:1 unreachable or slow; unacknowledged batches go to {{.*}}.bson (store them with: vigil collect --import {{.*}}.bson)
// SUM: producer spill.c.tmp mode lossless ended True complete True stored 100000 lost 0 produced 100000 missing 0 threads 1
