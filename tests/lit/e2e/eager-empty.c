// Bounds in which no event of an assertion happens are not checked, in
// every mode, whether the instance is initialised at the bound's entry
// (guideline: vigil/abi.h "Eager instances") or at its first event (strict
// and conditional, which an eager instance could not tell from a bound
// whose events left its state where it began).  Then one bound of each
// that does break its assertion is still reported.
// RUN: %vigil-cc -O1 %s -o %t
// RUN: env VIGIL_ON_FAILURE=log %t 0 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: env VIGIL_ON_FAILURE=log %t 1 2>&1 | FileCheck %s --check-prefix=BREAK
#include <stdio.h>
#include <stdlib.h>
#include <tesla.h>

void check(void) {}
void step(void) {}
int g(int run), c(int run), s(int run);

int g(int run) {
  if (run) {
    check();
    TESLA_WITHIN(g, TSEQUENCE(call(check), TESLA_ASSERTION_SITE, call(step)));
  }
  return 0;
}
int c(int run) {
  if (run) {
    check();
    TESLA_WITHIN(c, conditional(TSEQUENCE(call(check), TESLA_ASSERTION_SITE, call(step))));
  }
  return 0;
}
int s(int run) {
  if (run) {
    check();
    TESLA_WITHIN(s, strict(TSEQUENCE(call(check), TESLA_ASSERTION_SITE, call(step))));
  }
  return 0;
}

static volatile int hidden; /* the static checker sees no run that fails */

int main(int argc, char **argv) {
  hidden = argc > 1 && atoi(argv[1]) == 1;
  int run = hidden;
  for (int i = 0; i < 3; i++) {
    g(0);
    c(0);
    s(0);
  }
  if (run) { /* each site reached, no step after it */
    g(1);
    c(1);
    s(1);
  }
  fputs("done\n", stderr);
  return 0;
}
// EMPTY-NOT: assertion failed
// EMPTY: done
// BREAK: vigil: assertion failed at {{.*}}eager-empty.c:21:5
// BREAK: backtrace:
// BREAK-NEXT: #0 {{.*}}g
// BREAK: vigil: assertion failed at {{.*}}eager-empty.c:28:5
// BREAK: vigil: assertion failed at {{.*}}eager-empty.c:35:5
// BREAK-NOT: assertion failed
