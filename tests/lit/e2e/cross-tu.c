// An assertion in one file naming functions defined in another, compiled
// separately and earlier; then an edited assertion takes effect after an
// incremental rebuild of only the file that holds it.
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: %vigil-cc -O2 -c %S/Inputs/cross-tu-b.c -o %t.dir/b.o
// RUN: %vigil-cc -O2 -c %s -o %t.dir/a.o
// RUN: %vigil-cc -O2 %t.dir/a.o %t.dir/b.o -o %t.dir/prog
// RUN: %t.dir/prog 0 2>&1 | FileCheck %s --check-prefix=OK
// RUN: env VIGIL_ON_FAILURE=log %t.dir/prog 1 2>&1 | FileCheck %s --check-prefix=BAD
// Edit the assertion (expect a return value of -1 instead of 0), rebuild a.o only:
// RUN: sed 's/permitted(uid) == 0/permitted(uid) == -1/' %s > %t.dir/a2.c
// RUN: %vigil-cc -O2 -I%S -c %t.dir/a2.c -o %t.dir/a.o
// RUN: %vigil-cc -O2 %t.dir/a.o %t.dir/b.o -o %t.dir/prog
// RUN: env VIGIL_ON_FAILURE=log %t.dir/prog 0 2>&1 | FileCheck %s --check-prefix=EDITED
#include <stdio.h>
#include <stdlib.h>
#include <tesla.h>

int permitted(int uid);
int get(int uid, int fail_check);

void access_data(int uid) {
  TESLA_WITHIN(get, previously(permitted(uid) == 0));
}

int main(int argc, char **argv) {
  get(0, atoi(argv[1]));
  fputs("done\n", stderr);
  return 0;
}
// OK-NOT: vigil
// OK: done
// BAD: (missing-before-site)
// BAD: done
// EDITED: previously(permitted(uid) == -1)
// EDITED: (missing-before-site)
// EDITED: done
