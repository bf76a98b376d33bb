// The second check of a checked write (runtime/atomic_undo.c), in prevent
// mode, with the order fixed by the test.  "before": the reader's region
// begins (begin_read reads 1) between the writer's first check and its
// exchange (x = 2); the second check finds the region, whose first read saw
// the old value: the write is undone (x is 1 again), held until the region
// ends (the reader's second read sees 1, as its first did), and made again
// (x ends 2); a prevented RWR is reported.  "after": the region begins after
// the exchange and its first read sees 2: the write stands, nothing is
// undone or reported.
// RUN: %atomic-cc %s -o %t %atomic-libs
// RUN: env VIGIL_ATOMIC_MODE=prevent VIGIL_ATOMIC_TIMEOUT_MS=5000 VIGIL_ON_FAILURE=log VIGIL_STATS=1 %t before 2>&1 | FileCheck %s --check-prefix=BEFORE
// RUN: env VIGIL_ATOMIC_MODE=prevent VIGIL_ATOMIC_TIMEOUT_MS=5000 VIGIL_ON_FAILURE=log VIGIL_STATS=1 %t after 2>&1 | FileCheck %s --check-prefix=AFTER
#include "program.h"

static int region_open, written;

static void *writer(void *arg) {
  int before = *(int *)arg;
  if (before) /* the first check is past; the region begins now */
    while (!__atomic_load_n(&region_open, __ATOMIC_ACQUIRE))
      ;
  uint64_t old = (uint32_t)__atomic_exchange_n(&x, 2, __ATOMIC_SEQ_CST);
  if (__vigil_atomic_filter[VIGIL_ATOMIC_BUCKET(&x)] & VIGIL_ATOMIC_FILTER_COUNT)
    __vigil_access_written(&x, SITE_WRITE, old, 2);
  __atomic_store_n(&written, 1, __ATOMIC_RELEASE);
  return NULL;
}

int main(int argc, char **argv) {
  int before = argc > 1 && !strcmp(argv[1], "before");
  x = 1;
  pthread_t t;
  pthread_create(&t, NULL, writer, &before);
  if (!before)
    while (!__atomic_load_n(&written, __ATOMIC_ACQUIRE))
      ;
  int first = (int)__vigil_ar_begin_read(AR_READER, &x, 4);
  __atomic_store_n(&region_open, 1, __ATOMIC_RELEASE);
  sleep_ms(200); /* the writer's exchange and second check happen here */
  int during = __atomic_load_n(&x, __ATOMIC_RELAXED);
  int second = x;
  __vigil_ar_end(END_R_R, &x);
  pthread_join(t, NULL);
  printf("first %d, during %d, second %d, final %d\n", first, during, second, x);
  return 0;
}

// BEFORE: vigil: atomicity violation (RWR) on x
// BEFORE: verdict:  prevented
// BEFORE: first 1, during 1, second 1, final 2
// BEFORE: writes_undone 1
// BEFORE-NOT: writes_not_undone {{[1-9]}}

// AFTER-NOT: atomicity violation
// AFTER: first 2, during 2, second 2, final 2
// AFTER-NOT: writes_undone {{[1-9]}}
