// Regression test for a bug (docs/faults.md, "longjmp"): a longjmp out of
// a bound function skips its exit, so the bound's depth stayed 1 and every
// later call of the bound function only nested in it; the abandoned
// bound's authorise() then satisfied every later site.  Here request(0)
// never authorises and must fail.  The fix (runtime/abandon.c): the next
// entry finds the recorded frame gone, drops and counts the abandoned
// bound's instance, and starts a new bound.
// RUN: %vigil-cc -O1 %s -o %t
// RUN: env VIGIL_ON_FAILURE=log VIGIL_BACKTRACE=0 VIGIL_STATS=1 %t 2>&1 | FileCheck %s
#include <setjmp.h>
#include <stdio.h>
#include <tesla.h>

static jmp_buf env;
void authorise(void) {}
void bail(void) { longjmp(env, 1); }
int request(int auth, int jump);
void handle(void) { TESLA_WITHIN(request, previously(call(authorise))); }

int request(int auth, int jump) {
  if (auth)
    authorise();
  if (jump)
    bail();
  handle();
  return 0;
}

int main(void) {
  if (!setjmp(env))
    request(1, 1); /* authorise, then jump out before the site */
  fputs("jumped out\n", stderr);
  request(0, 0); /* no authorise: a violation */
  fputs("done\n", stderr);
  return 0;
}
// CHECK: jumped out
// CHECK-NEXT: vigil: assertion failed at {{.*}}longjmp-stale-bound.c:{{[0-9]+}}:21
// CHECK: (missing-before-site)
// CHECK: done
// CHECK: longjmp-stale-bound.c:{{[0-9]+}}:21{{ +}}2{{ +}}{{[0-9]+}}{{ +}}0{{ +}}1
