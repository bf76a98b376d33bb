// Discard accounting: with a tiny kernel ring buffer (--ring-size 4096,
// one page) under a burst of 2 x 100000 getppid system calls, events are
// lost, and every one is counted: per thread, the `end` totals say
// produced 100000 = shipped + lost (check-stream checks the sum against the
// batches), and each batch's `lost` is exactly the number of sequence
// numbers missing before it (--strict).
// REQUIRES: bpf-record
// RUN: %clang-plain -O1 -g -pthread %s -o %t
// RUN: %vigil-bin record --ring-size 4096 --tracepoint syscalls:sys_enter_getppid --stream file:%t.bson -- %t 100000 2 2> /dev/null
// RUN: %check-stream %t.bson --strict --threads | FileCheck %s
//
// Uprobes on the same program with the same ring: whether events are lost
// depends on how fast the reader is, but the accounting is exact either way.
// RUN: %vigil-bin record --ring-size 4K --uprobe %t:tick --stream file:%t.u.bson -- %t 20000 0 2> /dev/null
// RUN: %check-stream %t.u.bson --strict --threads | FileCheck %s --check-prefix=UPROBE
//
// A ring size that is not a power of two from 4K to 1G is refused.
// RUN: %python %S/Inputs/status.py 2 %vigil-bin record --ring-size 3000 --tracepoint syscalls:sys_enter_getppid --stream file:%t.bad.bson -- %t 1 1 2> %t.err
// RUN: FileCheck %s --check-prefix=SIZE < %t.err
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static long n;

__attribute__((noinline)) long tick(long i) {
  __asm__ volatile("" ::: "memory");
  return i;
}

static void *run(void *arg) {
  for (long i = 0; i < n; i++)
    syscall(SYS_getppid);
  return arg;
}

int main(int argc, char **argv) {
  n = atol(argv[1]);
  int k = atoi(argv[2]);
  pthread_t t[16];
  if (!k) /* the uprobe burst, in the main thread */
    for (long i = 0; i < n; i++)
      tick(i);
  for (long i = 0; i < k; i++)
    pthread_create(&t[i], 0, run, 0);
  for (int i = 0; i < k; i++)
    pthread_join(t[i], 0);
  return 0;
}
// CHECK: threads 2 batches {{[0-9]+}} events {{[0-9]+}} lost {{[1-9][0-9]*}} produced 200000
// CHECK-NEXT: event syscalls:sys_enter_getppid/tracepoint {{[0-9]+}}
// CHECK-NEXT: strict ok
// CHECK-NEXT: thread produced 100000 shipped {{[0-9]+}} lost {{[0-9]+}}
// CHECK-NEXT: thread produced 100000 shipped {{[0-9]+}} lost {{[0-9]+}}
// UPROBE: threads 1 batches {{[0-9]+}} events {{[0-9]+}} lost {{[0-9]+}} produced 40000
// UPROBE: strict ok
// UPROBE-NEXT: thread produced 40000 shipped {{[0-9]+}} lost {{[0-9]+}}
// SIZE: vigil: error: --ring-size 3000: expected a power of two from 4K to 1G
