// 1000 threads (50 at a time) begin and end ARs on a shared variable and
// on their own, access the shared one, clear, and some exit still holding
// an AR: no crash, no deadlock (every hold is bounded), and afterwards no
// slot and no filter bucket is left in use.  More ARs are live than there
// are slots at times: those are counted unmonitored, not lost.
// RUN: %atomic-cc %s -o %t %atomic-libs
// RUN: rm -f %t.jsonl
// RUN: env VIGIL_ON_FAILURE=count VIGIL_REPORT=%t.jsonl %t 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=JSON < %t.jsonl
// RUN: env VIGIL_ON_FAILURE=count VIGIL_ATOMIC_MODE=detect %t 2>&1 | FileCheck %s
#include "program.h"

#define THREADS 1000
#define AT_ONCE 50
#define ROUNDS 100

static void *worker(void *arg) {
  long id = (long)arg;
  int own[2];
  for (int r = 0; r < ROUNDS; r++) {
    __vigil_ar_begin(AR_READER, &x, 0);
    __vigil_ar_begin(AR_OTHER, &own[r & 1], 0); /* its own variable: no conflict */
    if ((r + id) % 7 == 0)
      checked_access(&y, SITE_Y_WRITE);
    __vigil_ar_end(END_OTHER, &own[r & 1]);
    if (r % 3 == 0)
      __vigil_ar_end(END_R_W, &x);
    else if (r % 3 == 1)
      __vigil_ar_clear(0, 3);
    /* r % 3 == 2: left open: the next begin of AR 0 ends it (a loop) */
    if ((r + id) % 5 == 0)
      checked_access(&x, SITE_WRITE);
  }
  if (id % 2)
    __vigil_ar_begin(AR_WRITER, &y, 1); /* exits holding an AR */
  else
    __vigil_ar_clear(0, 3);
  return NULL;
}

int main(void) {
  pthread_t t[AT_ONCE];
  for (long base = 0; base < THREADS; base += AT_ONCE) {
    for (long i = 0; i < AT_ONCE; i++)
      if (pthread_create(&t[i], NULL, worker, (void *)(base + i)))
        return 1;
    for (long i = 0; i < AT_ONCE; i++)
      pthread_join(t[i], NULL);
  }
  printf("slots in use %u, filter buckets set %u, sleeping %u\n", busy_slots(), busy_buckets(),
         sleepers());
  return 0;
}
// CHECK: slots in use 0, filter buckets set 0, sleeping 0
// CHECK: vigil: {{[0-9]+}} atomicity violation
// JSON: "kind":"atomic-stats"{{.*}}"begins":{{[1-9][0-9]*}},
