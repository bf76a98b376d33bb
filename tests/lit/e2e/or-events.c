// An OR block is a logical OR, never an XOR (a TESLA bug): either check, or
// both, in any order, satisfy it; neither fails.
// RUN: %vigil-cc -O1 %s -o %t
// RUN: %t 1 2>&1 | FileCheck %s --check-prefix=OK
// RUN: %t 2 2>&1 | FileCheck %s --check-prefix=OK
// RUN: %t 3 2>&1 | FileCheck %s --check-prefix=OK
// RUN: %t 4 2>&1 | FileCheck %s --check-prefix=OK
// RUN: env VIGIL_ALGORITHM=history %t 3 2>&1 | FileCheck %s --check-prefix=OK
// RUN: env VIGIL_ON_FAILURE=log %t 0 2>&1 | FileCheck %s --check-prefix=NONE
#include <stdio.h>
#include <stdlib.h>
#include <tesla.h>

int check_uid(int x) { return x; }
int check_cap(int x) { return x; }
int entry(int which, int x);

void privileged(int x) {
  TESLA_WITHIN(entry, previously(check_uid(x) == 0 || check_cap(x) == 0));
}

int entry(int which, int x) {
  if (which == 1) check_uid(x);
  if (which == 2) check_cap(x);
  if (which == 3) { check_uid(x); check_cap(x); }
  if (which == 4) { check_cap(x); check_uid(x); }
  privileged(x);
  return 0;
}

int main(int argc, char **argv) {
  entry(atoi(argv[1]), 0);
  puts("done");
  return 0;
}
// OK-NOT: vigil
// OK: done
// NONE: (missing-before-site)
// NONE: allowed: check_uid(x) == 0 | check_cap(x) == 0
// NONE: done
