// Port of TESLA's Instrumentation/constant-arg.c: constants (macros) as an
// argument and as the return value: previously(foo(PI) == ANSWER).
// RUN: %vigil-cc -O1 %s -o %t
// RUN: %t 3 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t 0 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: env VIGIL_ON_FAILURE=log %t 4 2>&1 | FileCheck %s --check-prefix=BAD
#include <stdio.h>
#include <stdlib.h>
#include <tesla-macros.h>

#define PI 3
#define ANSWER 42

/* foo(3) is the only call that answers 42; foo(4) answers 0. */
int foo(int x) { return x == PI ? ANSWER : x == 4 ? 0 : ANSWER; }

void context(int arg) {
  foo(arg);
  fprintf(stderr, "assertion\n");
  TESLA_WITHIN(context, previously(foo(PI) == ANSWER));
}

int main(int argc, char **argv) {
  context(argc > 1 ? atoi(argv[1]) : PI);
  fprintf(stderr, "done\n");
  return 0;
}
// OK: assertion
// OK: done
//
// BAD: assertion
// BAD-NEXT: vigil: assertion failed at {{.*}}tesla-constant-arg.c:{{[0-9]+}}:3
// BAD: reason: required event foo(PI) == ANSWER did not happen before the assertion site (missing-before-site)
// BAD: done
