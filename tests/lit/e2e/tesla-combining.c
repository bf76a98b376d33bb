// Port of TESLA's Instrumentation/combining.c: the same event before and
// after the site, TSEQUENCE(call(foo), TESLA_ASSERTION_SITE, call(foo)),
// in main()'s bound (one symbol, two places in the automaton).
// RUN: %vigil-cc -O1 %s -o %t
// RUN: %t ok 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t more 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t none-after 2>&1 | FileCheck %s --check-prefix=AFTER
// RUN: env VIGIL_ON_FAILURE=log %t none-before 2>&1 | FileCheck %s --check-prefix=BEFORE
#include <stdio.h>
#include <string.h>
#include <tesla-macros.h>

static void foo(void) {}

int main(int argc, char *argv[]) {
  const char *m = argc > 1 ? argv[1] : "ok";
  if (strcmp(m, "none-before"))
    foo();
  if (!strcmp(m, "more"))
    foo();
  fprintf(stderr, "assertion\n");
  TESLA_WITHIN(main, TSEQUENCE(call(foo), TESLA_ASSERTION_SITE, call(foo)));
  if (strcmp(m, "none-after"))
    foo();
  if (!strcmp(m, "more"))
    foo();
  fprintf(stderr, "done\n");
  return 0;
}
// OK: assertion
// OK: done
//
// Reported when main() returns, after its last line.
// AFTER: assertion
// AFTER-NOT: assertion failed
// AFTER: done
// AFTER-NEXT: vigil: assertion failed at {{.*}}tesla-combining.c:{{[0-9]+}}:3
// AFTER: reason: required event call(foo) did not happen after the assertion site before the bound ended (missing-after-site)
//
// BEFORE: assertion
// BEFORE-NEXT: vigil: assertion failed at {{.*}}tesla-combining.c:{{[0-9]+}}:3
// BEFORE: reason: required event call(foo) did not happen before the assertion site (missing-before-site)
// BEFORE-NOT: assertion failed
// BEFORE: done
