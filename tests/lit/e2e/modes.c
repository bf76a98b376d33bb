// Guideline (default): a path run twice in one bound passes.  Conditional:
// every arrival at the site needs its own check.  Strict: nothing else may
// happen in the bound.
// RUN: %vigil-cc -O1 %s -o %t
// RUN: %t guideline 2>&1 | FileCheck %s --check-prefix=OK
// RUN: env VIGIL_ON_FAILURE=log %t conditional 2>&1 | FileCheck %s --check-prefix=COND
// RUN: %t strict-ok 2>&1 | FileCheck %s --check-prefix=OK
// RUN: env VIGIL_ON_FAILURE=log %t strict-bad 2>&1 | FileCheck %s --check-prefix=STRICT
// RUN: env VIGIL_ON_FAILURE=log %t strict-nosite 2>&1 | FileCheck %s --check-prefix=NOSITE
#include <stdio.h>
#include <string.h>
#include <tesla.h>

void check(void) {}
void step(void) {}
int g(int twice);
int c(int twice);
int s(int bad);

void use_g(void) { TESLA_WITHIN(g, previously(call(check))); }
void use_c(void) { TESLA_WITHIN(c, conditional(previously(call(check)))); }
void use_s(void) {
  TESLA_WITHIN(s, strict(TSEQUENCE(call(check), TESLA_ASSERTION_SITE, call(step))));
}

int g(int twice) { check(); use_g(); if (twice) use_g(); return 0; }
int c(int twice) { check(); use_c(); if (twice) use_c(); return 0; }
int s(int bad) {
  check();
  if (bad == 1) check();
  if (bad != 2) {
    use_s();
    step();
  }
  return 0;
}

int main(int argc, char **argv) {
  const char *m = argv[1];
  if (!strcmp(m, "guideline")) g(1);
  if (!strcmp(m, "conditional")) { c(0); fputs("first ok\n", stderr); c(1); }
  if (!strcmp(m, "strict-ok")) s(0);
  if (!strcmp(m, "strict-bad")) s(1);
  if (!strcmp(m, "strict-nosite")) s(2);
  puts("done");
  return 0;
}
// OK-NOT: vigil
// OK: done
// COND: first ok
// COND-NEXT: vigil: assertion failed
// COND: (missing-before-site)
// COND: done
// STRICT: strict mode: call(check) is not a transition {{.*}}(unexpected-event)
// STRICT: done
// NOSITE: (site-not-reached)
// NOSITE: done
