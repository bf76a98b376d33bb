// 100 000 passing bounds with one failing among them: reported exactly once,
// counted exactly once, and the program's own exit status is kept (log mode).
// RUN: %vigil-cc -O2 %s -o %t
// RUN: rm -f %t.jsonl
// RUN: env VIGIL_ON_FAILURE=log VIGIL_STATS=1 VIGIL_REPORT=%t.jsonl not %t 2>&1 | FileCheck %s --check-prefixes=CHECK,%fastpath
// RUN: wc -l < %t.jsonl | FileCheck %s --check-prefix=LINES
// RUN: rm -f %t.jsonl
// RUN: env VIGIL_ON_FAILURE=count not %t 2>&1 | FileCheck %s --check-prefix=COUNT
#include <stdio.h>
#include <tesla.h>

int check(int x) { return x & 0; }
int bound(int i);
void site(int i) { TESLA_WITHIN(bound, previously(check(i) == 0)); }
int bound(int i) {
  if (i != 54321)
    check(i);
  site(i);
  return 0;
}
int main(void) {
  for (int i = 0; i < 100000; i++)
    bound(i);
  return 3;
}
// CHECK-COUNT-1: vigil: assertion failed
// CHECK-NOT: vigil: assertion failed
// CHECK: values: i = 54321
// The site is decided from the inline log (compiler/pass/HooksLogSite.cpp):
// only the thread's first bound and the failing site reach the runtime;
// with every hook a runtime call, all 199 999 events do.
// FAST: many-bounds.c:{{[0-9]+}}:20{{ +}}100000{{ +}}3{{ +}}99999{{ +}}1{{ +}}0
// NOFAST: many-bounds.c:{{[0-9]+}}:20{{ +}}100000{{ +}}199999{{ +}}99999{{ +}}1{{ +}}0
// LINES: 1
// COUNT-NOT: assertion failed
// COUNT: vigil: 1 violation counted
