// A checked read is bracketed by two loads of its bucket's word (the pass's
// sequence, include/vigil/atomic.h).  Here the reader is "preempted" between
// its first load and its check while another thread's region begins, stores
// an intermediate value, restores it and ends: the read saw the middle of a
// region, and at the check the count is back to 0.  The word's end count
// has moved, so the read goes to the runtime and is read again (mysql-791:
// a connection read LOG_CLOSED, and a count alone let the row go unlogged).
// A read with no region in its window stays inline.
// RUN: %atomic-cc %s -o %t %atomic-libs
// RUN: env VIGIL_ON_FAILURE=log %t 2>&1 | FileCheck %s
#include <semaphore.h>

#include "program.h"

static sem_t closed, read_done, restored;

static void *rotate(void *arg) {
  (void)arg;
  __vigil_ar_begin(AR_WRITER, &x, 0);
  __atomic_store_n(&x, 0, __ATOMIC_SEQ_CST); /* LOG_CLOSED */
  sem_post(&closed);
  sem_wait(&read_done);
  __atomic_store_n(&x, 1, __ATOMIC_SEQ_CST); /* reopened */
  __vigil_ar_end(END_W_W, &x);
  sem_post(&restored);
  return NULL;
}

static uint32_t bucket_word(void) {
  return __atomic_load_n(&__vigil_atomic_filter[VIGIL_ATOMIC_BUCKET(&x)], __ATOMIC_ACQUIRE);
}

/* The pass's checked read, with hooks before the read and before the check. */
static int checked_read(void (*before_read)(void), void (*before_check)(void)) {
  uint32_t before = bucket_word();
  if (before_read)
    before_read();
  int v = __atomic_load_n(&x, __ATOMIC_RELAXED);
  printf("read %d\n", v);
  if (before_check)
    before_check();
  uint32_t after = bucket_word();
  printf("count at the check: %u\n", after & VIGIL_ATOMIC_FILTER_COUNT);
  if ((before & VIGIL_ATOMIC_FILTER_COUNT) || before != after) {
    printf("read again\n");
    v = (int)__vigil_access_read(&x, SITE_READ, sizeof x);
  }
  return v;
}

static pthread_t rotator;
static void region_closes_the_log(void) {
  pthread_create(&rotator, NULL, rotate, NULL);
  sem_wait(&closed);
}
static void region_reopens_and_ends(void) {
  sem_post(&read_done);
  sem_wait(&restored);
}

int main(void) {
  sem_init(&closed, 0, 0), sem_init(&read_done, 0, 0), sem_init(&restored, 0, 0);
  x = 1;
  printf("quiet: %d\n", checked_read(NULL, NULL));
  printf("window: %d\n", checked_read(region_closes_the_log, region_reopens_and_ends));
  pthread_join(rotator, NULL);
  return 0;
}
// CHECK: read 1
// CHECK-NEXT: count at the check: 0
// CHECK-NEXT: quiet: 1
// CHECK-NEXT: read 0
// CHECK-NEXT: count at the check: 0
// CHECK-NEXT: read again
// CHECK-NEXT: window: 1
// CHECK-NOT: atomicity violation
