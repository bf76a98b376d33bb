// longjmp inside and out of a bound (docs/faults.md, "longjmp").  Within
// the bound function nothing is lost.  Out of it, the bound's exit hook
// never runs: the bound stays open (depth 1) and every later call of the
// bound function nests in it.  No crash, and no false report for later
// bounds that are correct; but later violations can be missed:
// longjmp-stale-bound.c (XFAIL) is that bug.
// RUN: %vigil-cc -O1 %s -o %t
// RUN: env VIGIL_ON_FAILURE=log VIGIL_BACKTRACE=0 %t 2>&1 | FileCheck %s
#include <setjmp.h>
#include <stdio.h>
#include <tesla.h>
#include <vigil/runtime.h>

static jmp_buf env;
void authorise(void) {}
void bail(void) { longjmp(env, 1); }
int request(int auth, int jump);
void handle(void) { TESLA_WITHIN(request, previously(call(authorise))); }

int request(int auth, int jump) {
  if (jump == 2 && !setjmp(env))
    bail(); /* a jump that stays inside the bound */
  if (auth)
    authorise();
  if (jump == 1)
    bail(); /* out of the bound, before the site */
  handle();
  return 0;
}

static void totals(const char *when) {
  struct vigil_totals t;
  vigil_get_totals(&t);
  fprintf(stderr, "%s: passes %llu failures %llu\n", when, (unsigned long long)t.passes,
          (unsigned long long)t.failures);
}

int main(void) {
  request(1, 2);
  totals("jump inside");
  request(0, 2);
  totals("jump inside, no authorise");
  if (!setjmp(env))
    request(1, 1);
  totals("jumped out");
  for (int i = 0; i < 1000; i++)
    request(1, 0);
  totals("later correct bounds");
  return 0;
}
// CHECK: jump inside: passes 1 failures 0
// CHECK: vigil: assertion failed at {{.*}}longjmp.c:{{[0-9]+}}:21
// CHECK: (missing-before-site)
// CHECK: jump inside, no authorise: passes 1 failures 1
// CHECK-NEXT: jumped out: passes 1 failures 1
// (cumulative: no new failure; the 1 000 bounds nest in the open one, so
// they are not counted as passes one by one)
// CHECK-NEXT: later correct bounds: passes {{[0-9]+}} failures 1
// CHECK-NOT: vigil
