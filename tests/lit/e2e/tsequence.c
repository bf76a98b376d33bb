// TSEQUENCE with events on both sides of the site, an optional event, and
// a returned value.
// RUN: %vigil-cc -O1 %s -o %t
// RUN: %t 0 2>&1 | FileCheck %s --check-prefix=OK
// RUN: %t 1 2>&1 | FileCheck %s --check-prefix=OK
// RUN: env VIGIL_ON_FAILURE=log %t 2 2>&1 | FileCheck %s --check-prefix=ORDER
// RUN: env VIGIL_ON_FAILURE=log %t 3 2>&1 | FileCheck %s --check-prefix=AFTER
#include <stdio.h>
#include <stdlib.h>
#include <tesla.h>

int lock(void) { return 0; }
void audit(void) {}
void unlock(void) {}
int work(int mode);

void critical(void) {
  TESLA_WITHIN(work, TSEQUENCE(lock() == 0, optional(call(audit)),
                               TESLA_ASSERTION_SITE, call(unlock)));
}

int work(int mode) {
  if (mode == 2) { lock(); audit(); audit(); } /* audit twice: out of order */
  else { lock(); if (mode == 1) audit(); }
  critical();
  if (mode != 3)
    unlock();
  return 0;
}

int main(int argc, char **argv) {
  work(atoi(argv[1]));
  puts("done");
  return 0;
}
// OK-NOT: vigil
// OK: done
// ORDER: vigil: assertion failed
// ORDER: (wrong-order)
// ORDER: done
// AFTER: required event call(unlock) did not happen after the assertion site {{.*}}(missing-after-site)
// AFTER: done
