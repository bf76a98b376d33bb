// longjmp out of a bound whose assertion's site is decided from the inline
// log (compiler/pass/HooksLogSite.cpp): the next entry closes the abandoned
// bound (runtime/abandon.c), whose instance the runtime first rebuilds
// from the log (the events, the inline site, the rest; runtime/inline_log.c)
// and then drops and counts, never reports.  Out before the site, out after
// it (not done), and later bounds checked on their own; the same totals as
// with every hook a runtime call.
// RUN: %vigil-cc -O1 %s -o %t
// RUN: env VIGIL_FAST_PATH=0 %vigil-cc -O1 %s -o %t.slow
// RUN: env VIGIL_ON_FAILURE=log VIGIL_BACKTRACE=0 %t 2>&1 | FileCheck %s
// RUN: env VIGIL_ON_FAILURE=log VIGIL_BACKTRACE=0 %t.slow 2>&1 | FileCheck %s
#include <setjmp.h>
#include <stdio.h>
#include <tesla.h>
#include <vigil/runtime.h>

static jmp_buf env;
__attribute__((noinline)) void val(int x) { __asm__ volatile("" ::"r"(x)); }
__attribute__((noinline)) void two(void) { __asm__ volatile(""); }
__attribute__((noinline)) void bail(void) { longjmp(env, 1); }
int request(int i, int jump);

__attribute__((noinline)) void check(int i) {
  TESLA_WITHIN(request, TSEQUENCE(call(val(i)), TESLA_ASSERTION_SITE, call(two)));
}

int request(int i, int jump) {
  val(i + 1); /* another value: logged, ignored at the site */
  val(i);
  if (jump == 1)
    bail(); /* out before the site */
  check(i);
  if (jump == 2)
    bail(); /* out after the site, before two(): not done */
  if (jump != 3)
    two();
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
  request(1, 0);
  totals("first");
  if (!setjmp(env))
    request(2, 1);
  request(3, 0);
  totals("out before the site");
  if (!setjmp(env))
    request(4, 2);
  request(5, 0);
  totals("out after the site");
  request(6, 3);
  totals("missing after the site");
  for (int i = 0; i < 1000; i++)
    request(10 + i, 0);
  totals("later bounds");
  return 0;
}
// CHECK: first: passes 1 failures 0 dropped 0 abandoned 0
// (an abandoned bound's open instance is dropped and counted, before its
// site or after it)
// CHECK-NEXT: out before the site: passes 2 failures 0 dropped 1 abandoned 1
// CHECK-NEXT: out after the site: passes 3 failures 0 dropped 2 abandoned 2
// CHECK-NEXT: vigil: assertion failed at {{.*}}longjmp-log-site.c:{{[0-9]+}}:3
// CHECK: (missing-after-site)
// CHECK: values: i = 6
// CHECK: missing after the site: passes 3 failures 1 dropped 2 abandoned 2
// CHECK-NEXT: later bounds: passes 1003 failures 1 dropped 2 abandoned 2
// CHECK-NOT: vigil
