// Assertions sharing their bounds form one bound group wherever their sites
// are (here: one in the bound function, five in a function it calls), and
// the group's instances are initialised eagerly or late (vigil/abi.h "Eager
// instances"; compiler/pass/Plan.cpp planEager): the assertion whose site
// is in the bound function is initialised at every entry (its instances are
// the 10 bounds), the five others, more than a small group's share, at
// their first event (1 instance: the one bound that reaches them).  Events
// outside the bound are ignored; the eager instance still reports.
// RUN: %vigil-cc -O1 %s -o %t
// RUN: nm %t | grep -c ' vigil\.bound[0-9]*$' | FileCheck %s --check-prefix=GROUPS
// RUN: env VIGIL_STATS=1 %t 0 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: env VIGIL_ON_FAILURE=log VIGIL_STATS=1 %t 1 2>&1 | FileCheck %s --check-prefix=FAIL
#include <stdlib.h>
#include <tesla.h>

void authorise(void) {}
void audit(void) {}
int work(int mode);

void elsewhere(void) {
  TESLA_WITHIN(work, previously(call(audit)));
  TESLA_WITHIN(work, previously(call(audit)));
  TESLA_WITHIN(work, previously(call(audit)));
  TESLA_WITHIN(work, previously(call(audit)));
  TESLA_WITHIN(work, previously(call(audit)));
}

int work(int mode) {
  if (mode != 1)
    authorise();
  TESLA_WITHIN(work, previously(call(authorise)));
  if (mode == 2) {
    audit();
    elsewhere();
  }
  return 0;
}

int main(int argc, char **argv) {
  authorise(); /* outside the bound: ignored */
  for (int i = 0; i < 10; i++)
    work(i == 3 ? 2 : 0);
  if (argc > 1 && atoi(argv[1]) == 1)
    work(1); /* no authorise in this bound */
  return 0;
}
// GROUPS: {{^}}1{{$}}
// STATS-NOT: assertion failed
// STATS: vigil: statistics (6 assertions)
// STATS-DAG: bound-groups.c:{{[0-9]+}}:3{{ +}}10{{ +}}{{[0-9]+}}{{ +}}10{{ +}}0{{ +}}0
// STATS-DAG: bound-groups.c:{{[0-9]+}}:3{{ +}}1{{ +}}{{[0-9]+}}{{ +}}1{{ +}}0{{ +}}0
// FAIL: vigil: assertion failed at {{.*}}bound-groups.c:{{[0-9]+}}:3
// FAIL: (missing-before-site)
// FAIL: vigil: statistics (6 assertions)
// FAIL-DAG: bound-groups.c:{{[0-9]+}}:3{{ +}}11{{ +}}{{[0-9]+}}{{ +}}10{{ +}}1{{ +}}0
