// Port of TESLA's Integration/static.c: events on static (internal)
// functions, one observed at its call sites and one at its entry, inside
// main()'s bound.
// RUN: %vigil-cc -O1 %s -o %t
// RUN: %t ok 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t again 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t bar-only 2>&1 | FileCheck %s --check-prefix=BARONLY
// RUN: env VIGIL_ON_FAILURE=log %t foo-only 2>&1 | FileCheck %s --check-prefix=FOOONLY
#include <stdio.h>
#include <string.h>
#include <tesla-macros.h>

static void foo(void) {}
static void bar(void) {}

int main(int argc, char *argv[]) {
  const char *m = argc > 1 ? argv[1] : "ok";
  if (!strcmp(m, "ok")) { foo(); bar(); }
  if (!strcmp(m, "again")) { foo(); foo(); bar(); }
  if (!strcmp(m, "bar-only")) bar();
  if (!strcmp(m, "foo-only")) foo();
  fprintf(stderr, "assertion\n");
  TESLA_WITHIN(main, TSEQUENCE(caller(call(foo)), callee(call(bar)),
                               TESLA_ASSERTION_SITE));
  fprintf(stderr, "done\n");
  return 0;
}
// OK: assertion
// OK: done
//
// BARONLY: assertion
// BARONLY-NEXT: vigil: assertion failed at {{.*}}tesla-static.c:{{[0-9]+}}:3
// BARONLY: reason: required event call(foo) did not happen before the assertion site (missing-before-site)
// BARONLY: done
//
// FOOONLY: assertion
// FOOONLY-NEXT: vigil: assertion failed at {{.*}}tesla-static.c:{{[0-9]+}}:3
// FOOONLY: reason: required event call(bar) did not happen before the assertion site (missing-before-site)
// FOOONLY: done
