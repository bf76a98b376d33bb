// A signal handler that calls instrumented functions while the thread it
// interrupted is inside a bound (docs/faults.md, "Signal handlers").  The
// handler's events are the interrupted thread's events: they count when
// the thread was in the program's own code, and are ignored when it was
// inside the runtime (the `busy` guard of runtime/entry.c).  Per-thread
// assertions: no crash, no deadlock, no false report.  Global assertions
// can deadlock: signal-global-deadlock.c.
// RUN: %vigil-cc -O1 %s -o %t
// The handler's authorise() is the only one: it counts, the site passes.
// RUN: env VIGIL_STATS=1 %t raise 2>&1 | FileCheck %s --check-prefix=RAISE
// A 20 kHz timer whose handler calls instrumented functions (events of the
// assertion and the bound function itself) while the main code runs 1 000 000
// bounds.
// RUN: env VIGIL_STATS=1 VIGIL_ON_FAILURE=log %t timer 2>&1 | FileCheck %s --check-prefix=TIMER
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <tesla.h>

void authorise(int x) { (void)x; }
int request(int x, int sig);
void handle(int x) { TESLA_WITHIN(request, previously(call(authorise(x)))); }

static volatile sig_atomic_t hits;
static void on_signal(int s) {
  hits++;
  authorise(1);
  if (s == SIGALRM)
    request(2, 0); /* a whole bound inside the handler (nested in the
                      interrupted one, or on its own between two) */
}

int request(int x, int sig) {
  if (sig)
    raise(SIGUSR1); /* the handler calls authorise(1) inside this bound */
  else
    authorise(x);
  handle(x);
  return 0;
}

int main(int argc, char **argv) {
  (void)argc;
  signal(SIGUSR1, on_signal);
  signal(SIGALRM, on_signal);
  if (!strcmp(argv[1], "raise"))
    request(1, 1);
  if (!strcmp(argv[1], "timer")) {
    struct itimerval it = {{0, 50}, {0, 50}};
    setitimer(ITIMER_REAL, &it, 0);
    for (int i = 0; i < 1000000; i++)
      request(i, 0);
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, 0);
    fprintf(stderr, "signals: %s\n", hits > 0 ? "some" : "none");
  }
  fputs("done\n", stderr);
  return 0;
}
// RAISE-NOT: assertion failed
// RAISE: done
// RAISE: vigil: statistics (1 assertion
// RAISE-NEXT: assertion
// RAISE-NEXT: signal.c:{{[0-9]+}}:{{[0-9]+}}{{ +}}1{{ +}}{{[0-9]+}}{{ +}}1{{ +}}0{{ +}}0
// TIMER-NOT: assertion failed
// TIMER: signals: some
// TIMER-NEXT: done
// TIMER: vigil: statistics (1 assertion
// TIMER-NEXT: assertion
// TIMER-NEXT: signal.c:{{[0-9]+}}:{{[0-9]+}}{{ +}}[[N:[0-9]+]]{{ +}}{{[0-9]+}}{{ +}}[[N]]{{ +}}0{{ +}}0
