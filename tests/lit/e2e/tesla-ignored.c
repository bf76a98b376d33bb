// Port of TESLA's Integration/ignored.c: events outside the bound are
// ignored.  bar() calls foo() around its assertion; main() calls foo()
// before and after bar(), outside bar()'s bound, which neither helps nor
// hurts.
// RUN: %vigil-cc -O1 %s -o %t
// RUN: %t ok 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t outside-only 2>&1 | FileCheck %s --check-prefix=OUTSIDE --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t no-first 2>&1 | FileCheck %s --check-prefix=NOFIRST
// RUN: env VIGIL_ON_FAILURE=log %t no-second 2>&1 | FileCheck %s --check-prefix=NOSECOND
#include <stdio.h>
#include <string.h>
#include <tesla-macros.h>

void foo(void) {}

void bar(int first, int second) {
  if (first)
    foo();
  TESLA_WITHIN(bar, TSEQUENCE(call(foo), TESLA_ASSERTION_SITE, call(foo)));
  if (second)
    foo();
}

int main(int argc, char *argv[]) {
  const char *m = argc > 1 ? argv[1] : "ok";
  foo(); /* outside bar(): ignored */
  if (!strcmp(m, "ok")) bar(1, 1);
  if (!strcmp(m, "no-first")) bar(0, 1);
  if (!strcmp(m, "no-second")) bar(1, 0);
  fprintf(stderr, "left bar\n");
  foo(); /* outside bar(): ignored */
  if (!strcmp(m, "outside-only")) fprintf(stderr, "no bound\n");
  fprintf(stderr, "done\n");
  return 0;
}
// OK: left bar
// OK: done
// OUTSIDE: no bound
// OUTSIDE: done
//
// NOFIRST: vigil: assertion failed at {{.*}}tesla-ignored.c:{{[0-9]+}}:3
// NOFIRST: (missing-before-site)
// NOFIRST: left bar
// NOFIRST: done
//
// NOSECOND: vigil: assertion failed at {{.*}}tesla-ignored.c:{{[0-9]+}}:3
// NOSECOND: (missing-after-site)
// NOSECOND: left bar
// NOSECOND-NOT: assertion failed
// NOSECOND: done
