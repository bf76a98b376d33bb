// scope task with a key naming another thread (key=arg0): the per-object
// table keyed by thread id; `start` rules: nothing is checked before an
// instance is started.
// RUN: %vigil-cc --vigil-monitor=%S/Inputs/monitor/wwnr-calls.bind -O1 %s -o %t -lpthread
// RUN: env VIGIL_ON_FAILURE=log %t 2>&1 | FileCheck %s
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

__attribute__((noinline)) void wake_task(long tid) { __asm__ volatile("" ::"r"(tid)); }

__attribute__((noinline)) int run_task(int wake_self) {
  if (wake_self)
    wake_task(gettid()); /* a wakeup of a running task */
  return 0;
}

static pthread_barrier_t b;
void *other(void *arg) {
  *(long *)arg = gettid();
  run_task(0); /* starts monitoring this thread at its return */
  pthread_barrier_wait(&b);
  pthread_barrier_wait(&b); /* main wakes it now: not running, fine */
  return NULL;
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  run_task(1); /* not monitored yet: ignored, then started */
  puts("round 1");
  long tid = 0;
  pthread_t t;
  pthread_barrier_init(&b, NULL, 2);
  pthread_create(&t, NULL, other, &tid);
  pthread_barrier_wait(&b);
  wake_task(tid);
  pthread_barrier_wait(&b);
  pthread_join(t, NULL);
  puts("round 2");
  printf("me %ld\n", (long)gettid());
  run_task(1); /* monitored: wakeup while running */
  puts("done");
  return 0;
}
// CHECK-NOT: vigil: monitor
// CHECK: round 1
// CHECK-NOT: vigil: monitor
// CHECK: round 2
// CHECK: me [[TID:[0-9]+]]
// CHECK-NEXT: vigil: monitor violation: wwnr_calls ({{.*}}wwnr-calls.bind)
// CHECK-NEXT: model wwnr ({{.*}}models/wwnr.dot), scope task
// CHECK-NEXT: reason:{{ +}}event wakeup is not allowed in state running (monitor-invalid-event)
// CHECK-NEXT: event:{{ +}}wakeup <- call:wake_task key=arg0 (wwnr-calls.bind:10)
// CHECK-NEXT: state:{{ +}}running
// CHECK-NEXT: values:{{ +}}key = [[TID]]
// CHECK-NEXT: allowed:{{ +}}switch_out
// CHECK-NOT: vigil: monitor
// CHECK: done
