// The static checker's verdicts (--vigil-static=report): an assertion that
// holds on every path is proven; one with a path that skips its check is
// unknown, with where it may fail, and it does fail at run time.  Recursion,
// loops, calls through summaries, and an indirect call that reaches the
// check are all followed.
// RUN: %vigil-cc --vigil-static=report -O1 -g %s -o %t 2>&1 | FileCheck %s
// RUN: %t 1 2>&1 | FileCheck %s --check-prefix=RUN-OK
// RUN: env VIGIL_ON_FAILURE=log %t 7 2>&1 | FileCheck %s --check-prefix=RUN-BAD
// Prune mode removes the three proven ones and keeps the others, still checked at run time.
// RUN: %vigil-cc --vigil-static=prune -O1 -g %s -o %t.pruned 2>&1 | FileCheck %s --check-prefix=PRUNE
// RUN: env VIGIL_ON_FAILURE=log VIGIL_STATS=1 %t.pruned 7 2>&1 | FileCheck %s --check-prefix=RUN-BAD
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
  sys_sometimes(x);
  sys_loop(x);
  sys_after(x);
  sys_indirect(x);
  printf("done\n");
  return 0;
}
// CHECK-DAG: vigil: static: {{.*}}verdicts.c:25:32: proven: every path from the bound's start follows the automaton
// CHECK-DAG: vigil: static: {{.*}}verdicts.c:26:34: unknown: a check may fail at {{.*}}verdicts.c:26:34: the site may be reached without the events the assertion needs before it
// CHECK-DAG: vigil: static: {{.*}}verdicts.c:27:29: proven
// CHECK-DAG: vigil: static: {{.*}}verdicts.c:28:30: proven
// CHECK-DAG: vigil: static: {{.*}}verdicts.c:29:33: unknown: a check may fail
// CHECK: vigil: static: 5 assertions: 3 proven, 2 unknown (kept at run time)
// RUN-OK: done
// RUN-BAD: vigil: assertion failed at {{.*}}verdicts.c:26:34
// RUN-BAD-NOT: assertion failed
// RUN-BAD: done
// PRUNE-NOT: proven
// PRUNE-DAG: vigil: static: {{.*}}verdicts.c:26:34: unknown: a check may fail
// PRUNE-DAG: vigil: static: {{.*}}verdicts.c:29:33: unknown: a check may fail
// PRUNE: vigil: static: 5 assertions: 3 proven and removed, 2 unknown (kept at run time)
// PRUNED-STATS-NOT: verdicts.c:25:
// PRUNED-STATS-NOT: verdicts.c:27:
// PRUNED-STATS-NOT: verdicts.c:28:
// PRUNED-STATS: vigil: statistics (2 assertions)
