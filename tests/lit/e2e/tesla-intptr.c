// Port of TESLA's Instrumentation/intptr.c: one event with an int, an
// int * and a struct pointer argument, all captured at the site, in
// main()'s bound.  Each value must match for the event to count.
// RUN: %vigil-cc -O1 %s -o %t
// RUN: %t ok 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ALGORITHM=history %t ok 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t other-int 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: env VIGIL_ON_FAILURE=log %t other-intptr 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: env VIGIL_ON_FAILURE=log %t other-struct 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ALGORITHM=history %t other-struct 2>&1 | FileCheck %s --check-prefix=BAD
#include <assert.h>
#include <stdio.h>
#include <string.h>
#include <tesla-macros.h>

struct something {
  int i;
};

static int foo(int x, int *xp, struct something *sp) {
  assert(*xp == x);
  assert(sp->i == x);
  return 0;
}

int main(int argc, char *argv[]) {
  const char *m = argc > 1 ? argv[1] : "ok";
  int i = 4, j = 5;
  int *ip = &i;
  struct something s, t;
  s.i = i;
  t.i = j;
  struct something *sp = &s;

  if (!strcmp(m, "ok")) foo(i, ip, sp);
  if (!strcmp(m, "other-int")) foo(j, &j, &t);
  if (!strcmp(m, "other-intptr")) { int k = 4; foo(i, &k, sp); }
  if (!strcmp(m, "other-struct")) { struct something u = {4}; foo(i, ip, &u); }
  fprintf(stderr, "assertion\n");
  TESLA_WITHIN(main, previously(foo(i, ip, sp) == 0));
  fprintf(stderr, "done\n");
  return 0;
}
// OK: assertion
// OK: done
//
// BAD: assertion
// BAD-NEXT: vigil: assertion failed at {{.*}}tesla-intptr.c:{{[0-9]+}}:3
// BAD: reason: required event foo(i, ip, sp) == 0 did not happen before the assertion site (missing-before-site)
// BAD: done
