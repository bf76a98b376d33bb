// Bad VIGIL_ATOMIC_* values are said in the words of every other VIGIL_
// variable (runtime/config.c, parse.c) and the default is used: a
// configuration mistake never stops the program being verified (the run
// still detects and prevents).  A program built for another atomic ABI is
// ignored with a message.
// RUN: %atomic-cc %s -o %t %atomic-libs
// RUN: env VIGIL_ATOMIC_MODE=bogus VIGIL_ATOMIC_TIMEOUT_MS=soon VIGIL_ATOMIC_PAUSE_MS=-4 VIGIL_ATOMIC_PAUSE_RATE=2 VIGIL_ATOMIC_DETECTOR=magic VIGIL_ATOMIC_DEDUP=7 VIGIL_STATS=1 %t 2>&1 | FileCheck %s
// RUN: env VIGIL_ATOMIC_DETECTOR=watchpoints VIGIL_STATS=1 %t 2>&1 | FileCheck %s --check-prefix=WATCH
// RUN: env VIGIL_ATOMIC_DETECTOR=begin VIGIL_STATS=1 %t 2>&1 | FileCheck %s --check-prefix=BEGIN
// RUN: env VIGIL_ATOMIC_MODE=train VIGIL_STATS=1 %t 2>&1 | FileCheck %s --check-prefix=TRAIN
// RUN: %t abi 2>&1 | FileCheck %s --check-prefix=ABI
#include "program.h"

int main(int argc, char **argv) {
  if (argc > 1) { /* a second registration with another ABI */
    struct vigil_atomic_program other = program;
    other.abi = VIGIL_ATOMIC_ABI + 1;
    extern const struct vigil_atomic_program *vg_atomic_prog;
    vg_atomic_prog = NULL;
    __vigil_atomic_register(&other);
    return 0;
  }
  __vigil_ar_begin(AR_READER, &x, 0);
  __vigil_ar_end(END_R_R, &x);
  fprintf(stderr, "done\n");
  return 0;
}
// CHECK-DAG: vigil: ignoring VIGIL_ATOMIC_MODE=bogus (expected prevent, detect, find or train)
// CHECK-DAG: vigil: ignoring VIGIL_ATOMIC_TIMEOUT_MS=soon (expected a number from 1 to 60000)
// CHECK-DAG: vigil: ignoring VIGIL_ATOMIC_PAUSE_MS=-4 (expected a number from 0 to 10000)
// CHECK-DAG: vigil: ignoring VIGIL_ATOMIC_PAUSE_RATE=2 (expected a probability from 0 to 1, e.g. 0.01)
// CHECK-DAG: vigil: ignoring VIGIL_ATOMIC_DETECTOR=magic (expected checks, watchpoints or begin)
// CHECK-DAG: vigil: ignoring VIGIL_ATOMIC_DEDUP=7 (expected a number from 0 to 1)
// CHECK: done
// CHECK: vigil: atomic regions (prevent mode, access checks)
// CHECK-NEXT: begins 1
// WATCH: vigil: atomic regions: hardware watchpoints are not available here; using the access checks
// WATCH: vigil: atomic regions (prevent mode, access checks)
// BEGIN-NOT: vigil: atomic regions:
// BEGIN: vigil: atomic regions (prevent mode, begins only)
// TRAIN: vigil: VIGIL_ATOMIC_MODE=train writes its findings to VIGIL_ATOMIC_WHITELIST=FILE, which is not set; detecting only
// TRAIN: vigil: atomic regions (detect mode, access checks)
// ABI: vigil: ignoring the program's atomic regions: built for atomic ABI 6, this libvigil has ABI 5 (rebuild with the vigil-cc of this libvigil)
