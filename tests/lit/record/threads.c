// vigil record of a multithreaded program: 4 threads call work 3000 times
// each (the main thread never does).  Batches are per thread: 4 threads in
// the stream, none of them the main thread, each with 6000 events whose
// sequence numbers are all there (--strict: no gap, lost 0 in every batch,
// time never goes back within a thread); every return value (i * 10 + the
// thread's number) is there exactly once.
// REQUIRES: bpf-record
// RUN: %clang-plain -O1 -g -pthread %s -o %t
// RUN: %vigil-bin record --uprobe %t:work --stream file:%t.bson -- %t 3000 4 2> /dev/null
// RUN: %check-stream %t.bson --hello --strict --threads --tids > %t.out
// RUN: FileCheck %s < %t.out
// RUN: %check-stream %t.bson --values work/return | grep '^value' | env LC_ALL=C sort > %t.values
// RUN: %python -c "print('\n'.join(sorted('value work/return %%d' %% (i * 10 + k) for i in range(3000) for k in range(1, 5))))" > %t.expected
// RUN: diff %t.expected %t.values
#include <pthread.h>
#include <stdlib.h>

__attribute__((noinline)) long work(long i, long k) {
  __asm__ volatile("" ::: "memory");
  return i * 10 + k;
}

static long n;

static void *run(void *arg) {
  long s = 0;
  for (long i = 0; i < n; i++)
    s += work(i, (long)arg);
  return (void *)s;
}

int main(int argc, char **argv) {
  n = atol(argv[1]);
  int k = atoi(argv[2]);
  pthread_t t[16];
  for (long i = 0; i < k; i++)
    pthread_create(&t[i], 0, run, (void *)(i + 1));
  for (int i = 0; i < k; i++)
    pthread_join(t[i], 0);
  return 0;
}
// CHECK: threads 4 batches {{[0-9]+}} events 24000 lost 0 produced 24000
// CHECK-NEXT: event work/entry 12000
// CHECK-NEXT: event work/return 12000
// CHECK-NEXT: hello program {{.*}}threads.c.tmp pid [[PID:[0-9]+]] mode discard
// CHECK: strict ok
// CHECK-NEXT: thread produced 6000 shipped 6000 lost 0
// CHECK-NEXT: thread produced 6000 shipped 6000 lost 0
// CHECK-NEXT: thread produced 6000 shipped 6000 lost 0
// CHECK-NEXT: thread produced 6000 shipped 6000 lost 0
// CHECK-NOT: tid [[PID]] produced
