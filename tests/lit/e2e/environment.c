// Bad VIGIL_* values are reported and the default is used; sizes that
// overflow are refused (the config fuzzer found VIGIL_STORE_LIMIT >= 2^63
// looping forever before main: tests/fuzz-rust/c/config_fuzz.c).
// RUN: %vigil-cc -O1 %s -o %t
// RUN: env VIGIL_STORE_LIMIT=99999999999999999999 %t 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: env VIGIL_STORE_LIMIT=9999999999G %t 2>&1 | FileCheck %s --check-prefix=SHIFT
// RUN: env VIGIL_MEMORY_LIMIT=-1k %t 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: env VIGIL_STORE_LIMIT=64x %t 2>&1 | FileCheck %s --check-prefix=SUFFIX
// RUN: env VIGIL_ON_FAILURE=sometimes VIGIL_STORE_LIMIT=16 %t 2>&1 | FileCheck %s --check-prefix=MODE
#include <stdio.h>
#include <tesla.h>

int main(void);
int check(int x) { return x; }

int main(void) {
  check(0);
  TESLA_WITHIN(main, previously(check(0) == 0));
  puts("done");
  return 0;
}

// RANGE: vigil: ignoring VIGIL_STORE_LIMIT=99999999999999999999 (expected a positive number)
// RANGE: done
// SHIFT: vigil: ignoring VIGIL_STORE_LIMIT=9999999999G (expected a size up to 256T)
// SHIFT: done
// NEG: vigil: ignoring VIGIL_MEMORY_LIMIT=-1k (expected a positive number)
// NEG: done
// SUFFIX: vigil: ignoring VIGIL_STORE_LIMIT=64x (expected a positive number with an optional K, M or G suffix)
// SUFFIX: done
// MODE: vigil: ignoring VIGIL_ON_FAILURE=sometimes (expected abort, log or count)
// MODE-NOT: ignoring VIGIL_STORE_LIMIT
// MODE: done
