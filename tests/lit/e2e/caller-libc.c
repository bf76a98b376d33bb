// Caller-side instrumentation: getpid() has no source here, so its call
// sites are instrumented.  ANY() matches every value.
// RUN: %vigil-cc -O1 %s -o %t
// RUN: %t 1 2>&1 | FileCheck %s --check-prefix=OK
// RUN: env VIGIL_ON_FAILURE=log %t 0 2>&1 | FileCheck %s --check-prefix=BAD
#include <stdio.h>
#include <stdlib.h>
#include <tesla.h>
#include <unistd.h>

int stamp(int when);
void log_line(void) {
  TESLA_WITHIN(stamp, previously(getpid() == ANY(int)));
}
int stamp(int when) {
  if (when)
    printf("pid %d\n", (int)getpid());
  log_line();
  return 0;
}
int main(int argc, char **argv) {
  stamp(atoi(argv[1]));
  fputs("done\n", stderr);
  return 0;
}
// OK-NOT: vigil
// OK: done
// BAD: required event getpid() == ANY(int) did not happen before the assertion site
// BAD: done
