// A traced program killed by a fatal signal still ends its stream: every
// event recorded before the signal is shipped, then the end with the
// totals; the signal then does what it does (the exit status says so).
// Also a thread blocked in lossless mode does not hang the exit.
// RUN: %vigil-cc -O1 --vigil-trace=work %s -o %t -lpthread
// RUN: env VIGIL_STREAM=file:%t.segv not --crash %t segv 100000
// RUN: %check-stream %t.segv --tids | FileCheck %s --check-prefix=SEGV
// RUN: env VIGIL_STREAM=file:%t.term not --crash %t term 100000
// RUN: %check-stream %t.term --tids | FileCheck %s --check-prefix=TERM
// RUN: env VIGIL_STREAM=file:%t.exit %t exit 100000
// RUN: %check-stream %t.exit --tids | FileCheck %s --check-prefix=EXIT
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) long work(long i) { return i; }
static long n;
static _Atomic int spinning;
static void *spin(void *a) {
  (void)a;
  for (;;) {
    work(-1); /* keeps producing while main dies */
    spinning = 1;
  }
  return 0;
}
int main(int argc, char **argv) {
  n = atol(argv[2]);
  for (long i = 0; i < n; i++)
    work(i);
  pthread_t t;
  pthread_create(&t, 0, spin, 0);
  while (!spinning) /* the other thread is producing (on a loaded machine it */
    usleep(100);    /* may not have run yet) */
  if (!strcmp(argv[1], "segv"))
    *(volatile int *)0 = 1;
  if (!strcmp(argv[1], "term"))
    kill(getpid(), SIGTERM);
  exit(0); /* the other thread is still producing */
}
// The main thread's 2n events are all there; the spinning thread's, up to
// where the stream ended; the end's totals cover both (checked by the
// script: shipped + lost = produced per thread).
// SEGV: threads 2 batches {{[0-9]+}} events {{[0-9]+}} lost 0 produced {{[0-9]+}}
// SEGV: event work/entry
// SEGV: tid {{[0-9]+}} produced 200000 lost 0
// SEGV-NEXT: tid {{[0-9]+}} produced {{[0-9]+}} lost 0
// TERM: threads 2 batches {{[0-9]+}} events {{[0-9]+}} lost 0 produced {{[0-9]+}}
// TERM: tid {{[0-9]+}} produced 200000 lost 0
// EXIT: threads 2 batches {{[0-9]+}} events {{[0-9]+}} lost 0 produced {{[0-9]+}}
// EXIT: tid {{[0-9]+}} produced 200000 lost 0
