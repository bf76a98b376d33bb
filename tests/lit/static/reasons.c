// What makes the checker say unknown without looking at paths: each reason
// is printed with the assertion's location.
// RUN: %vigil-cc --vigil-static=report -O1 -g %s -o %t 2>&1 | FileCheck %s
// RUN: %vigil-cc --vigil-static=report -O1 -g -DJUMPS %s -o %t.jumps 2>&1 | FileCheck %s --check-prefix=JUMPS
// RUN: %vigil-cc --vigil-static=report -O1 -g -DSIGNALS %s -o %t.signals 2>&1 | FileCheck %s --check-prefix=SIGNALS
// RUN: %vigil-cc --vigil-static=off -O1 -g %s -o %t.off 2>&1 | FileCheck %s --check-prefix=OFF --allow-empty
// RUN: not %vigil-cc --vigil-static=all -O1 %s -o %t.bad 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: env VIGIL_STATIC=sometimes not %vigil-cc -O1 %s -o %t.bad 2>&1 | FileCheck %s --check-prefix=BADENV
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <tesla.h>

int check(int x) { return x > 0; }
int sys_global(int x);
int sys_value(int x);
int sys_plain(int x);

static void op_global(void) {
  TESLA_GLOBAL(call(sys_global), returnfrom(sys_global), previously(call(check)));
}
static void op_value(int x) { TESLA_WITHIN(sys_value, previously(check(x) == 1)); }
static void op_plain(void) { TESLA_WITHIN(sys_plain, previously(call(check))); }

int sys_global(int x) { check(x); op_global(); return 0; }
int sys_value(int x) { check(x); op_value(x); return 0; }
int sys_plain(int x) { check(x); op_plain(); return 0; }

#ifdef JUMPS
static jmp_buf env;
#endif
#ifdef SIGNALS
static void on_int(int s) { (void)s; }
#endif
int main(int argc, char **argv) {
  (void)argv;
#ifdef JUMPS
  if (setjmp(env))
    return 1;
#endif
#ifdef SIGNALS
  signal(SIGINT, on_int);
#endif
  sys_global(argc);
  sys_value(argc);
  sys_plain(argc);
  return 0;
}
// CHECK-DAG: reasons.c:20:3: unknown: a global assertion (other threads' events count)
// CHECK-DAG: reasons.c:22:31: unknown: values captured at the site or free variables (one check per value tuple)
// CHECK-DAG: reasons.c:23:30: proven
// CHECK: 3 assertions: 1 proven, 0 violated, 2 unknown (kept at run time)
// JUMPS: reasons.c:23:30: unknown: the program uses setjmp/longjmp (a jump skips returns and bound ends)
// SIGNALS: reasons.c:23:30: unknown: the program installs signal handlers (they run between any two instructions)
// OFF-NOT: vigil: static
// BAD: vigil: error: --vigil-static=all: expected --vigil-static=off, report or prune
// BADENV: vigil: error: VIGIL_STATIC=sometimes: expected off, report or prune
