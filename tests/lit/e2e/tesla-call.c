// Port of TESLA's Integration/call.c: a per-thread assertion whose bounds
// are main() itself, over a nested TSEQUENCE of a caller-side and a
// callee-side event.
// RUN: %vigil-cc -O1 %s -o %t
// RUN: %t ok 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t repeated 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t no-foo 2>&1 | FileCheck %s --check-prefix=NOFOO
// RUN: env VIGIL_ON_FAILURE=log %t swapped 2>&1 | FileCheck %s --check-prefix=SWAPPED
#include <stdio.h>
#include <string.h>
#include <tesla-macros.h>

void foo(void);
void bar(void);

int main(int argc, char *argv[]) {
  const char *m = argc > 1 ? argv[1] : "ok";
  if (!strcmp(m, "ok")) { foo(); bar(); }
  if (!strcmp(m, "repeated")) { foo(); bar(); bar(); foo(); foo(); bar(); }
  if (!strcmp(m, "no-foo")) bar();
  if (!strcmp(m, "swapped")) { bar(); foo(); }
  fprintf(stderr, "assertion\n");
  TESLA_PERTHREAD(call(main), returnfrom(main),
                  previously(TSEQUENCE(caller(call(foo)), callee(call(bar)))));
  fprintf(stderr, "done\n");
  return 0;
}

void foo(void) {}
void bar(void) {}
// OK: assertion
// OK: done
//
// NOFOO: assertion
// NOFOO-NEXT: vigil: assertion failed at {{.*}}tesla-call.c:{{[0-9]+}}:3
// NOFOO: (missing-before-site)
// NOFOO: done
//
// bar, then foo: bar was never after a foo.
// SWAPPED: assertion
// SWAPPED-NEXT: vigil: assertion failed at {{.*}}tesla-call.c:{{[0-9]+}}:3
// SWAPPED: (wrong-order)
// SWAPPED: done
