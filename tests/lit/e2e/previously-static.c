// A static previously(): the check must happen before the site, in the bound.
// RUN: %vigil-cc -O1 %s -o %t
// RUN: %t ok 2>&1 | FileCheck %s --check-prefix=OK
// RUN: not --crash %t bad 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: env VIGIL_ON_FAILURE=log %t outside 2>&1 | FileCheck %s --check-prefix=OUTSIDE
#include <stdio.h>
#include <string.h>
#include <tesla.h>

int check(void) { return 0; }
int syscall_entry(int good);
void op(void) {
  TESLA_WITHIN(syscall_entry, previously(call(check)));
}
int syscall_entry(int good) {
  if (good)
    check();
  op();
  return 0;
}

int main(int argc, char **argv) {
  if (!strcmp(argv[1], "ok"))
    syscall_entry(1);
  else if (!strcmp(argv[1], "bad"))
    syscall_entry(0);
  else {
    check();
    op(); /* outside the bound: not checked */
  }
  puts("done");
  return 0;
}
// OK-NOT: vigil
// OK: done
// BAD: vigil: assertion failed at {{.*}}previously-static.c:{{[0-9]+}}:3
// BAD-NEXT: TESLA_WITHIN(syscall_entry, previously(call(check)))
// BAD-NEXT: reason: required event call(check) did not happen before the assertion site (missing-before-site)
// BAD: thread:
// BAD: backtrace:
// BAD-NEXT: #0 {{.*}}{{main|syscall_entry}} (
// BAD: vigil: aborting
// OUTSIDE-NOT: vigil
// OUTSIDE: done
