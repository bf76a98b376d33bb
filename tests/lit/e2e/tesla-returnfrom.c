// Port of TESLA's Parsing/returnfrom.c at run time: returnfrom(foo),
// returnfrom(foo()) and returnfrom(foo() == 0) are return events; only the
// last one looks at the value returned.
// RUN: %vigil-cc -O1 %s -o %t
// RUN: %t 0 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t 1 2>&1 | FileCheck %s --check-prefix=NONZERO
// RUN: env VIGIL_ON_FAILURE=log %t none 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: env VIGIL_ON_FAILURE=log %t entered 2>&1 | FileCheck %s --check-prefix=NONE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tesla-macros.h>

static int result;

int foo(void) { return result; }
int bar(void) { return 0; }

int context(const char *mode) {
  if (!strcmp(mode, "entered")) {
    /* bar, not foo: foo is neither entered nor left */
    bar();
  } else if (strcmp(mode, "none")) {
    result = atoi(mode);
    foo();
  }
  fprintf(stderr, "site\n");
  // NONZERO: site
  // NONZERO-NOT: assertion failed
  // NONE: site
  // NONE-NEXT: vigil: assertion failed at {{.*}}tesla-returnfrom.c:[[@LINE+1]]:3
  TESLA_WITHIN(context, previously(returnfrom(foo)));
  // NONE: reason: required event returnfrom(foo) did not happen before the assertion site (missing-before-site)
  // NONE: vigil: assertion failed at {{.*}}tesla-returnfrom.c:[[@LINE+1]]:3
  TESLA_WITHIN(context, previously(returnfrom(foo())));
  // NONE: (missing-before-site)
  // NONE: vigil: assertion failed at {{.*}}tesla-returnfrom.c:[[@LINE+2]]:3
  // NONZERO: vigil: assertion failed at {{.*}}tesla-returnfrom.c:[[@LINE+1]]:3
  TESLA_WITHIN(context, previously(returnfrom(foo() == 0)));
  // NONE: (missing-before-site)
  // NONZERO: reason: required event returnfrom(foo() == 0) did not happen before the assertion site (missing-before-site)
  return 0;
}

int main(int argc, char **argv) {
  context(argc > 1 ? argv[1] : "0");
  fprintf(stderr, "done\n");
  return 0;
}
// OK: site
// OK: done
//
// foo() returned 1: only the third assertion fails.
// NONZERO-NOT: assertion failed
// NONZERO: done
// NONE-NOT: assertion failed
// NONE: done
