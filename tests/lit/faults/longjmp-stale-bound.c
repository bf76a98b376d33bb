// XFAIL: *
// BUG (docs/faults.md, "longjmp"): a longjmp out of a bound function skips
// __vigil_bound_exit, so the bound's depth stays 1 and its generation odd
// (runtime/instance.c vg_engine_bound_enter, runtime/entry.c
// __vigil_bound_exit).  Every later call of the bound function only nests
// (depth 1 -> 2 -> 1): the bound never closes again, its instance is never
// reset, and the events of the abandoned bound satisfy every later site.
// Here request(0) never authorises and must fail; after the longjmp it
// passes on the abandoned bound's authorise(), and the instance count stops
// at 2.  Expected: the abandoned bound is closed (its instance dropped and
// counted) when the thread next enters the bound from a frame at or above
// the one that entered it.
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
