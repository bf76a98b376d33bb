// longjmp inside and out of a bound (docs/faults.md, "longjmp").  Within
// the bound function nothing is lost.  Out of it, the bound's exit hook
// never runs; the next entry of the bound finds its frame gone, closes the
// abandoned bound (its instance dropped and counted) and starts a new one,
// so each later bound is checked on its own.  longjmp-stale-bound.c and
// longjmp-abandoned.c check that violations after the jump are found.
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
  fprintf(stderr, "%s: passes %llu failures %llu dropped %llu abandoned %llu\n", when,
          (unsigned long long)t.passes, (unsigned long long)t.failures,
          (unsigned long long)t.dropped, (unsigned long long)t.abandoned);
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
// CHECK: jump inside: passes 1 failures 0 dropped 0 abandoned 0
// CHECK: vigil: assertion failed at {{.*}}longjmp.c:{{[0-9]+}}:21
// CHECK: (missing-before-site)
// CHECK: jump inside, no authorise: passes 1 failures 1 dropped 0 abandoned 0
// (the abandoned bound is found at the next entry, not at the jump)
// CHECK-NEXT: jumped out: passes 1 failures 1 dropped 0 abandoned 0
// CHECK-NEXT: later correct bounds: passes 1001 failures 1 dropped 1 abandoned 1
// CHECK-NOT: vigil
