// A tiny memory budget (VIGIL_MEMORY_LIMIT=64K) and the smallest store
// (VIGIL_STORE_LIMIT=16) against assertions on captured values with 5 000
// distinct values before the site in every bound (docs/faults.md, "Memory
// and store limits").  No crash, no false report: an instance whose verdict
// cannot be known any more (its store was full, or it got no memory) is
// dropped and counted, and every bound is accounted for (passes + failures +
// dropped = instances).  The last bound is a real violation: reported with
// the default limits, dropped (not reported) when the limit hid the answer.
// RUN: %vigil-cc -O1 %s -o %t
// RUN: env VIGIL_ON_FAILURE=log VIGIL_BACKTRACE=0 VIGIL_STATS=1 %t 2>&1 | FileCheck %s --check-prefix=DEFAULT
// RUN: env VIGIL_ON_FAILURE=log VIGIL_BACKTRACE=0 VIGIL_STATS=1 VIGIL_ALGORITHM=history %t 2>&1 | FileCheck %s --check-prefix=DEFAULT
// RUN: env VIGIL_ON_FAILURE=log VIGIL_BACKTRACE=0 VIGIL_STATS=1 VIGIL_STORE_LIMIT=16 %t 2>&1 | FileCheck %s --check-prefix=LIMIT
// With 8 distinct values in a bound the 16 entries are enough: exact verdicts.
// RUN: env VIGIL_ON_FAILURE=log VIGIL_BACKTRACE=0 VIGIL_STATS=1 VIGIL_STORE_LIMIT=16 %t 8 2>&1 | FileCheck %s --check-prefix=DEFAULT
// RUN: env VIGIL_ON_FAILURE=log VIGIL_BACKTRACE=0 VIGIL_STATS=1 VIGIL_STORE_LIMIT=16 VIGIL_ALGORITHM=history %t 8 2>&1 | FileCheck %s --check-prefix=DEFAULT
// RUN: env VIGIL_ON_FAILURE=log VIGIL_BACKTRACE=0 VIGIL_STATS=1 VIGIL_STORE_LIMIT=16 VIGIL_ALGORITHM=history %t 2>&1 | FileCheck %s --check-prefix=LIMIT
// RUN: env VIGIL_ON_FAILURE=log VIGIL_BACKTRACE=0 VIGIL_STATS=1 VIGIL_MEMORY_LIMIT=64K %t 2>&1 | FileCheck %s --check-prefix=LIMIT
// RUN: env VIGIL_ON_FAILURE=log VIGIL_BACKTRACE=0 VIGIL_STATS=1 VIGIL_MEMORY_LIMIT=64K VIGIL_ALGORITHM=history %t 2>&1 | FileCheck %s --check-prefix=LIMIT
// RUN: env VIGIL_ON_FAILURE=log VIGIL_BACKTRACE=0 VIGIL_STATS=1 VIGIL_MEMORY_LIMIT=64K VIGIL_STORE_LIMIT=16 %t 2>&1 | FileCheck %s --check-prefix=LIMIT
// RUN: env VIGIL_ON_FAILURE=log VIGIL_BACKTRACE=0 VIGIL_STATS=1 VIGIL_MEMORY_LIMIT=1K VIGIL_STORE_LIMIT=16 %t 2>&1 | FileCheck %s --check-prefix=LIMIT
#include <stdio.h>
#include <stdlib.h>
#include <tesla.h>
#include <vigil/runtime.h>

int check(long x) { (void)x; return 0; }
void authorise(long x) { (void)x; }
int request(long n, long want, int ok);
void use(long x) {
  TESLA_WITHIN(request, previously(check(x) == 0));
  TESLA_WITHIN(request, previously(call(authorise(x))));
}

int request(long n, long want, int ok) {
  for (long i = 0; i < n; i++) {
    check(i * 7919); /* 5 000 distinct values before the site */
    authorise(i * 7919);
  }
  if (ok) {
    check(want);
    authorise(want);
  }
  for (int k = 0; k < 10; k++)
    use(want);
  return 0;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 5000;
  for (int r = 0; r < 20; r++)
    request(n, 123456789 + r, 1);
  fputs("correct bounds done\n", stderr);
  request(n, 42, 0); /* a violation */
  struct vigil_totals t;
  vigil_get_totals(&t);
  fprintf(stderr, "instances %llu passes %llu failures %llu dropped %llu: %s\n",
          (unsigned long long)t.instances, (unsigned long long)t.passes,
          (unsigned long long)t.failures, (unsigned long long)t.dropped,
          t.passes + t.failures + t.dropped == t.instances ? "all accounted for" : "MISSING");
  return 0;
}
// DEFAULT-NOT: assertion failed
// DEFAULT: correct bounds done
// DEFAULT: vigil: assertion failed at {{.*}}memory-limits.c:{{[0-9]+}}:3
// DEFAULT: vigil: assertion failed at {{.*}}memory-limits.c:{{[0-9]+}}:3
// DEFAULT-NOT: assertion failed
// DEFAULT: instances 42 passes 40 failures 2 dropped 0: all accounted for
// DEFAULT: vigil: statistics (2 assertions)
// LIMIT-NOT: assertion failed
// LIMIT: correct bounds done
// LIMIT-NOT: assertion failed
// LIMIT: instances 42 passes {{[0-9]+}} failures 0 dropped {{[1-9][0-9]*}}: all accounted for
// LIMIT-NOT: assertion failed
// LIMIT: vigil: statistics (2 assertions)
// LIMIT-DAG: memory-limits.c:{{[0-9]+}}:3{{ +}}21{{ +}}{{[0-9]+}}{{ +}}{{[0-9]+}}{{ +}}0{{ +}}{{[1-9][0-9]*}}
// LIMIT-DAG: memory-limits.c:{{[0-9]+}}:3{{ +}}21{{ +}}{{[0-9]+}}{{ +}}{{[0-9]+}}{{ +}}0{{ +}}{{[1-9][0-9]*}}
