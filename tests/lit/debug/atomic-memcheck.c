// A program built with --vigil-atomic stays debuggable: memcheck finds no
// error in it (threads holding and waiting included), callgrind and perf
// profile it (every function listed: a report's symbolisation, when the
// run happens to split bump(), can push bump() under callgrind_annotate's
// default 99% cut), gdb stops at a source line of an instrumented function.
// Under valgrind the threads run one at a time, some 50 times slower, and
// a clean-clone `make test` (two lit workers) once saw the default 10 ms
// hold time out there: the waiting begin went ahead as it must, and the
// unprevented RWW aborted the run.  The valgrind runs hold up to 10 s.
// REQUIRES: valgrind, gdb
// RUN: %vigil-cc --vigil-atomic -g -O1 -pthread %s -o %t
// RUN: env VIGIL_ATOMIC_TIMEOUT_MS=10000 valgrind -q --error-exitcode=9 --suppressions=%root/valgrind/vigil.supp %t 2000 2>&1 | FileCheck %s --check-prefix=OUT
// RUN: env VIGIL_ATOMIC_TIMEOUT_MS=10000 valgrind -q --tool=callgrind --callgrind-out-file=%t.cg %t 2000 2>&1 | FileCheck %s --check-prefix=OUT
// RUN: callgrind_annotate --threshold=100 %t.cg | FileCheck %s --check-prefix=CG
// RUN: perf record -q -o %t.perf -- %t 200000 2>&1 | FileCheck %s --check-prefix=OUT
// RUN: perf report -i %t.perf --stdio 2>&1 | FileCheck %s --check-prefix=PERF
// RUN: gdb -nx -batch -ex 'break bump' -ex 'run 10' -ex bt %t 2>&1 | FileCheck %s --check-prefix=GDB
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

long counter;
static long rounds;

__attribute__((noinline)) void bump(void) {
  long c = counter;
  counter = c + 1;
}

static void *worker(void *arg) {
  (void)arg;
  for (long i = 0; i < rounds; i++)
    bump();
  return 0;
}

int main(int argc, char **argv) {
  rounds = argc > 1 ? atol(argv[1]) : 1000;
  pthread_t t[2];
  for (int i = 0; i < 2; i++)
    pthread_create(&t[i], 0, worker, 0);
  for (int i = 0; i < 2; i++)
    pthread_join(t[i], 0);
  printf("counter %ld of %ld\n", counter, 2 * rounds);
  return 0;
}

// OUT: counter [[N:[0-9]+]] of [[N]]
// OUT-NOT: ==
// CG: atomic-memcheck.c:bump
// PERF: {{bump|__vigil_ar_begin|worker}}
// GDB: Breakpoint 1, bump () at {{.*}}atomic-memcheck.c:26
// GDB: #0  bump () at {{.*}}atomic-memcheck.c:26
