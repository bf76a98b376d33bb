// What the failing-run search models, each case checked by running it:
// event values (`check(ANY(int)) == 0`), strcmp on argv[1], and a program
// that reads no input, whose one run it executes to the end: then the
// assertion is proven even though the product alone says "may fail".
// RUN: %vigil-cc --vigil-static=report -O1 -g %s -o %t 2>&1 | FileCheck %s
// RUN: env VIGIL_ON_FAILURE=log %t bad 2>&1 | FileCheck %s --check-prefix=FAILS
// RUN: env VIGIL_ON_FAILURE=log %t good 2>&1 | FileCheck %s --check-prefix=PASSES --allow-empty
// RUN: %vigil-cc --vigil-static=report -O1 -g -DNO_INPUT %s -o %t.noinput 2>&1 | FileCheck %s --check-prefix=NO-INPUT
// RUN: env VIGIL_ON_FAILURE=log %t.noinput 2>&1 | FileCheck %s --check-prefix=PASSES --allow-empty
// A failure that needs an input the search does not model stays unknown:
// RUN: %vigil-cc --vigil-static=report -O1 -g -DNO_INPUT -DALLOCATES %s -o %t.alloc 2>&1 | FileCheck %s --check-prefix=ALLOC
#include <stdlib.h>
#include <string.h>
#include <tesla.h>

int check(int x) { return x == 7; }
int sys_op(int x);
static void op(void) { TESLA_WITHIN(sys_op, previously(check(ANY(int)) == 0)); }
int sys_op(int x) { check(x); op(); return 0; }

#ifdef NO_INPUT
int main(void) {
#ifdef ALLOCATES
  int *p = malloc(sizeof *p); /* might fail on another run: not one run */
  *p = 3;
  sys_op(*p);
  free(p);
#else
  sys_op(3);
#endif
  return 0;
}
#else
int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "bad") == 0)
    sys_op(7); /* check(7) returns 1: the event does not match */
  else
    sys_op(1);
  return 0;
}
#endif
// CHECK: vigil: static: {{.*}}witness.c:18:24: violated: the site is reached without the events the assertion needs before it
// CHECK-NEXT: vigil: static:   a run that fails: ./prog 'bad'
// FAILS: vigil: assertion failed at {{.*}}witness.c:18:24
// PASSES-NOT: assertion failed
// NO-INPUT: vigil: static: {{.*}}witness.c:18:24: proven: the program reads no input, and its one run, executed exactly, follows the automaton
// ALLOC: vigil: static: {{.*}}witness.c:18:24: unknown: a check may fail
