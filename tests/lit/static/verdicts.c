// The static checker's verdicts (--vigil-static=report): an assertion that
// holds on every path is proven; one with a path that skips its check is
// violated, with the run that fails (x > 5), and it does fail at run time;
// an indirect call through a volatile pointer leaves one unknown.
// Recursion, loops, calls through summaries, and an indirect call that
// reaches the check are all followed.
// RUN: %vigil-cc --vigil-static=report -O1 -g %s -o %t 2>&1 | FileCheck %s
// RUN: %t 1 2>&1 | FileCheck %s --check-prefix=RUN-OK
// RUN: env VIGIL_ON_FAILURE=log %t 7 2>&1 | FileCheck %s --check-prefix=RUN-BAD
// Prune mode fails the link on the violated one ...
// RUN: not %vigil-cc --vigil-static=prune -O1 -g %s -o %t.pruned 2>&1 | FileCheck %s --check-prefix=PRUNE-FAIL
// ... and without it (sys_sometimes never called: its assertion holds
// vacuously) removes the four proven ones and keeps the unknown one, still
// checked at run time.
// RUN: %vigil-cc --vigil-static=prune -DNO_SOMETIMES -O1 -g %s -o %t.pruned 2>&1 | FileCheck %s --check-prefix=PRUNE
// RUN: env VIGIL_ON_FAILURE=log VIGIL_STATS=1 %t.pruned 7 2>&1 | FileCheck %s --check-prefix=PRUNED-STATS
#include <stdio.h>
#include <stdlib.h>
#include <tesla.h>

int check(int x) { return x > 0; }
void finish(void) {}
int sys_checked(int x);
int sys_sometimes(int x);
int sys_loop(int n);
int sys_after(int x);
int sys_indirect(int x);

static void op_checked(void) { TESLA_WITHIN(sys_checked, previously(call(check))); }
static void op_sometimes(void) { TESLA_WITHIN(sys_sometimes, previously(call(check))); }
static void op_loop(void) { TESLA_WITHIN(sys_loop, previously(call(check))); }
static void op_after(void) { TESLA_WITHIN(sys_after, eventually(call(finish))); }
static void op_indirect(void) { TESLA_WITHIN(sys_indirect, previously(call(check))); }

/* the check is two calls deep, on both branches */
static int validate(int x) { return x < 0 ? check(-x) : check(x); }
int sys_checked(int x) { validate(x); op_checked(); return 0; }
/* the check is skipped when x > 5 */
int sys_sometimes(int x) { if (x <= 5) check(x); op_sometimes(); return 0; }
/* the first iteration checks before any site */
int sys_loop(int n) { for (int i = 0; i < n; i++) { check(i); op_loop(); } return 0; }
/* every path after the site reaches finish() */
int sys_after(int x) { op_after(); if (x) finish(); else { puts("x is 0"); finish(); } return 0; }
/* check() reached through a pointer: unknown code may run it, or not */
int (*volatile checker)(int) = check;
int sys_indirect(int x) { checker(x); op_indirect(); return 0; }

int main(int argc, char **argv) {
  int x = argc > 1 ? atoi(argv[1]) : 1;
  sys_checked(x);
#ifndef NO_SOMETIMES
  sys_sometimes(x);
#endif
  sys_loop(x);
  sys_after(x);
  sys_indirect(x);
  printf("done\n");
  return 0;
}
// CHECK-DAG: vigil: static: {{.*}}verdicts.c:29:32: proven: every path from the bound's start follows the automaton
// CHECK-DAG: vigil: static: {{.*}}verdicts.c:30:34: violated: the site is reached without the events the assertion needs before it at {{.*}}verdicts.c:30:34
// CHECK-DAG: vigil: static:   a run that fails: ./prog '{{[6-9]|[1-9][0-9]+}}'
// CHECK-DAG: vigil: static:     {{.*}}verdicts.c:39:{{[0-9]+}}: takes the false branch
// CHECK-DAG: vigil: static: {{.*}}verdicts.c:31:29: proven
// CHECK-DAG: vigil: static: {{.*}}verdicts.c:32:30: proven
// CHECK-DAG: vigil: static: {{.*}}verdicts.c:33:33: unknown: a check may fail at {{.*}}: an indirect call whose target the search does not know)
// CHECK: vigil: static: 5 assertions: 3 proven, 1 violated, 1 unknown (kept at run time): 1 a check may fail on a path no run was found for
// RUN-OK: done
// RUN-BAD: vigil: assertion failed at {{.*}}verdicts.c:30:34
// RUN-BAD-NOT: assertion failed
// RUN-BAD: done
// PRUNE-FAIL: vigil: static: 5 assertions: 3 proven and removed, 1 violated, 1 unknown
// PRUNE-FAIL: {{.*}}verdicts.c:30:34: error: vigil: assertion violated
// PRUNE-NOT: proven
// PRUNE: vigil: static: {{.*}}verdicts.c:33:33: unknown: a check may fail
// PRUNE: vigil: static: 5 assertions: 4 proven and removed, 0 violated, 1 unknown (kept at run time)
// PRUNED-STATS-NOT: verdicts.c:29:
// PRUNED-STATS-NOT: verdicts.c:30:
// PRUNED-STATS-NOT: verdicts.c:31:
// PRUNED-STATS-NOT: verdicts.c:32:
// PRUNED-STATS: vigil: statistics (1 assertion{{s?}})
