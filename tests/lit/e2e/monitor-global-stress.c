// A global monitor under contention: threads tick one shared instance of a
// counter modulo 4 with no lock of their own, so the hooks' inline
// compare-and-swap, the runtime's (first events, lost swaps) and the
// threads' registrations race.  Every transition is allowed; a lost or
// doubled transition would leave the ring off r0 after a multiple of 4
// ticks (a not-final-at-exit violation, 3 times in 4).  A probabilistic
// check: a plain store in place of the swap was caught in 1 run of 3 here.
// RUN: %vigil-cc --vigil-monitor=%S/Inputs/monitor/ring.bind -O2 %s -o %t -lpthread
// RUN: %t 4 200000 2>&1 | FileCheck %s
// RUN: %t 3 40000 2>&1 | FileCheck %s --check-prefix=THREE
// RUN: env VIGIL_FAST_PATH=0 %t 4 200000 2>&1 | FileCheck %s
// A ring left in r2 is reported, so the check above can fail.
// RUN: env VIGIL_ON_FAILURE=log %t 1 2 2>&1 | FileCheck %s --check-prefix=OFF
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <vigil/runtime.h>

__attribute__((noinline)) void tick(void) { __asm__ volatile(""); }

static long per_thread;
static void *ticker(void *arg) {
  for (long i = 0; i < per_thread; i++)
    tick();
  return arg;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  int threads = atoi(argv[1]);
  per_thread = atol(argv[2]);
  pthread_t t[8];
  for (int i = 0; i < threads; i++)
    pthread_create(&t[i], NULL, ticker, NULL);
  for (int i = 0; i < threads; i++)
    pthread_join(t[i], NULL);
  struct vigil_totals tot;
  vigil_get_totals(&tot);
  printf("monitor_events=%llu monitor_failures=%llu\n", (unsigned long long)tot.monitor_events,
         (unsigned long long)tot.monitor_failures);
  return 0;
}
// CHECK-NOT: violation
// CHECK: monitor_events=800000 monitor_failures=0
// CHECK-NOT: violation

// THREE-NOT: violation
// THREE: monitor_events=120000 monitor_failures=0
// THREE-NOT: violation

// OFF: monitor_events=2 monitor_failures=0
// OFF-NEXT: vigil: monitor violation: ring
// OFF: reason:{{ +}}the program exited in state r2, which is not final (not-final-at-exit)
