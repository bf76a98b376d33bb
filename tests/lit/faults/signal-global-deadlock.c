// Fixed (docs/faults.md, "Signal handlers"): a signal handler that raises an
// event of a global assertion deadlocked when it interrupts its own thread
// while that thread holds the bound's spin lock in __vigil_bound_enter or
// __vigil_bound_exit (runtime/entry.c).  Those two take the lock without
// setting `busy`, so the handler's __vigil_event passes the `busy` check and
// spins in lock() forever on a lock its own thread holds (sched_yield loop:
// 100% sys time).  Backtrace of the hang:
//   lock <- __vigil_event <- on_alarm <- <signal handler> <- __vigil_bound_exit
// The same happens when the handler calls the global bound's function
// (__vigil_bound_enter -> lock) while the thread is inside __vigil_event.
// Now: the handler's event is ignored (as any event raised while the
// thread is inside the runtime) and the program finishes.
// RUN: %vigil-cc -O1 %s -o %t
// RUN: timeout 3 env VIGIL_ON_FAILURE=log %t event 2>&1 | FileCheck %s
// RUN: timeout 3 env VIGIL_ON_FAILURE=log %t bound 2>&1 | FileCheck %s
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <tesla.h>

void authorise(int x) { (void)x; }
void run(int n);
void commit(void) {
  TESLA_GLOBAL(call(run), returnfrom(run), previously(call(authorise(ANY(int)))));
}

static int bound_in_handler;
static void on_alarm(int s) {
  (void)s;
  if (bound_in_handler)
    run(0); /* __vigil_bound_enter: lock() */
  else
    authorise(7); /* __vigil_event: lock() */
}

void run(int n) {
  authorise(1);
  for (int i = 0; i < n; i++)
    authorise(i);
  commit();
}

int main(int argc, char **argv) {
  (void)argc;
  bound_in_handler = !strcmp(argv[1], "bound");
  signal(SIGALRM, on_alarm);
  struct itimerval it = {{0, 50}, {0, 50}};
  setitimer(ITIMER_REAL, &it, 0);
  if (bound_in_handler)
    for (int k = 0; k < 2000; k++)
      run(1000); /* mostly inside __vigil_event */
  else
    for (int k = 0; k < 2000000; k++)
      run(0); /* mostly inside __vigil_bound_enter/exit */
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, 0);
  fputs("done\n", stderr);
  return 0;
}
// CHECK-NOT: assertion failed
// CHECK: done
