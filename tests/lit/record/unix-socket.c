// vigil record to a collector over a Unix socket: the collector
// acknowledges every batch; the stream it received is complete (hello,
// consecutive batches, end with every event); vigil record waits for the
// acknowledgements and exits with the command's status without spilling.
// REQUIRES: bpf-record
// RUN: %clang-plain -O1 -g %s -o %t
// RUN: rm -f %t.sock
// RUN: %python %S/Inputs/collector.py unix:%t.sock %t.bson -- %vigil-bin record --uprobe %t:step --stream unix:%t.sock -- %t 5000 2> %t.err
// RUN: %check-stream %t.bson --strict | FileCheck %s
// RUN: FileCheck %s --check-prefix=ERR --implicit-check-not=spill < %t.err
#include <stdlib.h>

__attribute__((noinline)) long step(long i) {
  __asm__ volatile("" ::: "memory");
  return i + 1;
}

int main(int argc, char **argv) {
  long n = atol(argv[1]), s = 0;
  for (long i = 0; i < n; i++)
    s += step(i);
  return s == n * (n + 1) / 2 ? 0 : 1;
}
// CHECK: threads 1 batches {{[0-9]+}} events 10000 lost 0 produced 10000
// CHECK-NEXT: event step/entry 5000
// CHECK-NEXT: event step/return 5000
// CHECK-NEXT: strict ok
// ERR: vigil record: 1 function, 0 tracepoints; running {{.*}}; streaming to unix:{{.*}}.sock
