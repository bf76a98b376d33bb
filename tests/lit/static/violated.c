// The violated verdict: the checker finds a run on which the assertion
// fails, prints it as a command line and a call/branch trace, and prune
// mode (and the default) fail the link at the assertion's file:line.  The
// printed run does fail, and so does nothing else the test tries.
// RUN: %vigil-cc --vigil-static=report -O1 -g %s -o %t 2>&1 | FileCheck %s
// RUN: env VIGIL_ON_FAILURE=log %t 42 2>&1 | FileCheck %s --check-prefix=FAILS
// RUN: env VIGIL_ON_FAILURE=log %t 7 2>&1 | FileCheck %s --check-prefix=FAILS-END
// RUN: env VIGIL_ON_FAILURE=log %t 41 2>&1 | FileCheck %s --check-prefix=PASSES --allow-empty
// The same assertions, argv[1] read byte by byte:
// RUN: %vigil-cc --vigil-static=report -O1 -g -DBYTES %s -o %t.bytes 2>&1 | FileCheck %s --check-prefix=BYTES
// RUN: env VIGIL_ON_FAILURE=log %t.bytes xy 2>&1 | FileCheck %s --check-prefix=FAILS-BYTES
// RUN: env VIGIL_ON_FAILURE=log %t.bytes xz 2>&1 | FileCheck %s --check-prefix=PASSES --allow-empty
// RUN: not %vigil-cc --vigil-static=prune -O1 -g %s -o %t.pruned 2>&1 | FileCheck %s --check-prefix=LINK
// RUN: env -u VIGIL_STATIC not %vigil-cc -O1 -g %s -o %t.default 2>&1 | FileCheck %s --check-prefix=LINK
// RUN: env -u VIGIL_STATIC %vigil-cc -O0 -g %s -o %t.O0 2>&1 | FileCheck %s --check-prefix=OFF --allow-empty
// RUN: %vigil-cc --vigil-static=off -O1 -g %s -o %t.off 2>&1 | FileCheck %s --check-prefix=OFF --allow-empty
#include <stdlib.h>
#include <tesla.h>

int check(int x) { return x > 0; }
void audit(void) { __asm__ volatile(""); }
int sys_number(int x);
int sys_bytes(const char *s);
int sys_either(int x);

static void op_number(void) { TESLA_WITHIN(sys_number, previously(call(check))); }
static void op_bytes(void) { TESLA_WITHIN(sys_bytes, previously(call(check))); }
static void op_either(void) {
  TESLA_WITHIN(sys_either, previously(call(check)) || eventually(call(audit)));
}

/* only 42 skips the check */
int sys_number(int x) { if (x != 42) check(x); op_number(); return 0; }
/* only an argument starting "xy" skips it */
int sys_bytes(const char *s) { if (s[0] != 'x' || s[1] != 'y') check(1); op_bytes(); return 0; }
/* both alternatives fail when x is 7: the bound's end reports it */
int sys_either(int x) { if (x != 7) check(x); op_either(); if (x != 7) audit(); return 0; }

int main(int argc, char **argv) {
  if (argc < 2)
    return 0;
#ifdef BYTES
  sys_bytes(argv[1]);
#else
  int x = atoi(argv[1]);
  sys_either(x);
  sys_number(x);
#endif
  return 0;
}
// CHECK-DAG: vigil: static: {{.*}}violated.c:26:31: violated: the site is reached without the events the assertion needs before it at {{.*}}violated.c:26:31
// CHECK-DAG: vigil: static:   a run that fails: ./prog '42'
// CHECK-DAG: vigil: static:     {{.*}}violated.c:33:29: takes the false branch
// CHECK-DAG: vigil: static: {{.*}}violated.c:27:30: proven
// CHECK-DAG: vigil: static: {{.*}}violated.c:29:3: violated: the bound ends before the events the assertion needs after its site at {{.*}}violated.c:37:{{[0-9]+}}
// CHECK-DAG: vigil: static:   a run that fails: ./prog '7'
// CHECK: vigil: static: 3 assertions: 1 proven, 2 violated, 0 unknown (kept at run time)
// BYTES-DAG: vigil: static: {{.*}}violated.c:27:30: violated: the site is reached without {{.*}} at {{.*}}violated.c:27:30
// BYTES-DAG: vigil: static:   a run that fails: ./prog 'xy'
// BYTES-DAG: vigil: static:     {{.*}}violated.c:35:{{[0-9]+}}: takes the
// BYTES: vigil: static: 3 assertions: 2 proven, 1 violated, 0 unknown (kept at run time)
// FAILS-NOT: violated.c:29:3
// FAILS: vigil: assertion failed at {{.*}}violated.c:26:31
// FAILS-END: vigil: assertion failed at {{.*}}violated.c:29:3
// FAILS-BYTES: vigil: assertion failed at {{.*}}violated.c:27:30
// PASSES-NOT: assertion failed
// LINK: vigil: static: 3 assertions: 1 proven and removed, 2 violated, 0 unknown
// LINK-DAG: {{.*}}violated.c:26:31: error: vigil: assertion violated
// LINK-DAG: {{.*}}violated.c:29:3: error: vigil: assertion violated
// OFF-NOT: vigil: static
