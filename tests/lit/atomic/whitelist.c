// The whitelist: by the AR's first access (file:line, a path suffix
// matches) or by variable; a whitelisted AR is never reported and counts
// as whitelisted.  Train mode writes the ARs that had a violation in a
// run, merged with what the file had, without duplicates; the trained
// file then silences them.
// RUN: %atomic-cc %s -o %t %atomic-libs
// RUN: printf '# benign\n/src/t.c:10  # x, reader\n' > %t.loc
// RUN: rm -f %t.jsonl
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ATOMIC_MODE=detect VIGIL_ATOMIC_WHITELIST=%t.loc VIGIL_REPORT=%t.jsonl %t 2>&1 | FileCheck %s --check-prefix=LOC
// RUN: FileCheck %s --check-prefix=LOC-JSON < %t.jsonl
// RUN: printf 'y\nx\n' > %t.var
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ATOMIC_MODE=detect VIGIL_ATOMIC_WHITELIST=%t.var %t 2>&1 | FileCheck %s --check-prefix=VAR
// A file that is not there is said; nothing is whitelisted.
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ATOMIC_MODE=detect VIGIL_ATOMIC_WHITELIST=%t.missing %t 2>&1 | FileCheck %s --check-prefix=MISSING
// Training: a file with a line of its own, twice (no duplicates), then used.
// RUN: printf '# mine\nsomething.c:99\n' > %t.train
// RUN: env VIGIL_ATOMIC_MODE=train VIGIL_ATOMIC_WHITELIST=%t.train %t 2>&1 | FileCheck %s --check-prefix=TRAIN
// RUN: env VIGIL_ATOMIC_MODE=train VIGIL_ATOMIC_WHITELIST=%t.train %t 2>&1 | FileCheck %s --check-prefix=TRAIN2
// RUN: FileCheck %s --check-prefix=FILE --match-full-lines < %t.train
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ATOMIC_MODE=detect VIGIL_ATOMIC_WHITELIST=%t.train %t 2>&1 | FileCheck %s --check-prefix=VAR
#include "program.h"

static void *remote(void *arg) {
  (void)arg;
  checked_access(&x, SITE_WRITE);
  return NULL;
}

int main(void) {
  /* AR 0 (reader, t.c:10) twice with a remote write between: RWW */
  for (int i = 0; i < 2; i++) {
    __vigil_ar_begin(AR_READER, &x, 0);
    on_thread("remote", remote, NULL);
    __vigil_ar_end(END_R_W, &x);
  }
  /* AR 1 (writer, t.c:20) with a remote read between: WRW */
  __vigil_ar_begin(AR_WRITER, &x, 1);
  checked_access(&x, SITE_READ); /* its own thread: not remote */
  __vigil_ar_end(END_W_W, &x);
  fprintf(stderr, "done\n");
  return 0;
}
// LOC-NOT: on x at t.c:10:5
// LOC: done
// LOC-JSON: "whitelisted":2,
// VAR-NOT: atomicity violation
// VAR: done
// MISSING: vigil: cannot read VIGIL_ATOMIC_WHITELIST={{.*}}.missing (No such file or directory); no atomic region is whitelisted
// MISSING: atomicity violation (RWW) on x at t.c:10:5
// MISSING-NOT: atomicity violation
// MISSING: done
// An entry that names no region of this program is said, with its line.
// TRAIN: vigil: {{.*}}.train:2: `something.c:99` names no atomic region of this program
// TRAIN-NOT: atomicity violation
// TRAIN: done
// TRAIN: vigil: atomic regions: training added 1 entry to {{.*}}.train
// TRAIN2-NOT: atomicity violation
// TRAIN2: vigil: atomic regions: training added 0 entries to {{.*}}.train
// FILE: # mine
// FILE-NEXT: something.c:99
// FILE-NEXT: t.c:10  # x RWW 2
// FILE-NOT: {{.}}
