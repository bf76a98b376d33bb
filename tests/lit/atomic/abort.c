// VIGIL_ON_FAILURE applies as for assertions: abort (the default) stops
// at the first violation, after the report; count only counts, and says
// how many at exit, repeats included (one report per AR, site and pattern
// by default; VIGIL_ATOMIC_DEDUP=0 shows each).
// RUN: %atomic-cc %s -o %t %atomic-libs
// RUN: env VIGIL_ATOMIC_MODE=detect not --crash %t 2>&1 | FileCheck %s --check-prefix=ABORT
// RUN: env VIGIL_ATOMIC_MODE=detect VIGIL_ON_FAILURE=count %t 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: env VIGIL_ATOMIC_MODE=detect VIGIL_ON_FAILURE=log VIGIL_BACKTRACE=0 %t 2>&1 | FileCheck %s --check-prefix=DEDUP
// RUN: env VIGIL_ATOMIC_MODE=detect VIGIL_ON_FAILURE=log VIGIL_BACKTRACE=0 VIGIL_ATOMIC_DEDUP=0 %t 2>&1 | FileCheck %s --check-prefix=ALL
#include "program.h"

static void *remote(void *arg) {
  (void)arg;
  checked_access(&x, SITE_WRITE);
  return NULL;
}

int main(void) {
  for (int i = 0; i < 3; i++) {
    __vigil_ar_begin(AR_READER, &x, 0);
    on_thread("remote", remote, NULL);
    __vigil_ar_end(END_R_R, &x);
    fprintf(stderr, "round %d\n", i);
  }
  return 0;
}
// ABORT: vigil: atomicity violation (RWR) on x at t.c:10:5
// ABORT: vigil: aborting (set VIGIL_ON_FAILURE=log to continue)
// ABORT-NOT: round
// COUNT-NOT: atomicity violation (
// COUNT: round 2
// COUNT: vigil: 3 atomicity violations (0 prevented); 2 were a repeat of one already reported, not shown again (VIGIL_ATOMIC_DEDUP=0 shows them)
// DEDUP: vigil: atomicity violation (RWR)
// DEDUP-NOT: vigil: atomicity violation
// DEDUP: round 2
// ALL-COUNT-3: vigil: atomicity violation (RWR)
