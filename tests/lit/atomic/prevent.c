// Prevent mode holds a remote access until the AR ends; the timeout lets
// it go when the end does not come; detect mode never holds.  Ordering is
// checked without trusting sleeps: the local thread waits until the remote
// thread really sleeps on the AR (the slot's waiter count) before it looks.
// RUN: %atomic-cc %s -o %t %atomic-libs
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ATOMIC_TIMEOUT_MS=20000 %t check 2>&1 | FileCheck %s --check-prefix=HOLD
// A begin of another thread is a remote access too: held the same way.
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ATOMIC_TIMEOUT_MS=20000 %t begin 2>&1 | FileCheck %s --check-prefix=BEGIN
// Find mode holds as prevent mode does (and pauses the first begin).
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ATOMIC_MODE=find VIGIL_ATOMIC_PAUSE_MS=1 VIGIL_ATOMIC_TIMEOUT_MS=20000 VIGIL_STATS=1 %t check 2>&1 | FileCheck %s --check-prefixes=HOLD,FIND
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ATOMIC_TIMEOUT_MS=100 VIGIL_STATS=1 %t timeout 2>&1 | FileCheck %s --check-prefix=TIMEOUT
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ATOMIC_MODE=detect %t detect 2>&1 | FileCheck %s --check-prefix=DETECT
#include "program.h"

static const char *how;
static atomic_int done;
static double waited_ms, finished_at;

static void *remote(void *arg) {
  (void)arg;
  double t0 = now_ms();
  if (!strcmp(how, "begin")) {
    __vigil_ar_begin(AR_WRITER, &x, 5); /* waits here: x is in the local AR */
    x = 5;
    __vigil_ar_end(END_W_W, &x);
  } else {
    checked_access(&x, SITE_WRITE);
    x = 5;
  }
  finished_at = now_ms();
  waited_ms = finished_at - t0;
  atomic_store(&done, 1);
  return NULL;
}

int main(int argc, char **argv) {
  how = argc > 1 ? argv[1] : "check";
  pthread_t t;
  __vigil_ar_begin(AR_READER, &x, 0);
  int seen = x;
  pthread_create(&t, NULL, remote, NULL);
  if (!strcmp(how, "detect")) {
    pthread_join(t, NULL); /* not held: it finishes inside the AR */
    printf("remote finished inside the AR: %s\n", done ? "yes" : "no");
  } else if (!strcmp(how, "timeout")) {
    await_sleepers(1); /* held ... */
    await_sleepers(0); /* ... then let go by the timeout, the AR still running */
    pthread_join(t, NULL);
    printf("remote finished inside the AR: %s\n", done ? "yes" : "no");
    printf("remote waited at least the timeout: %s\n", waited_ms >= 95 ? "yes" : "no");
  } else {
    await_sleepers(1);
    sleep_ms(50);
    printf("remote finished inside the AR: %s\n", done ? "yes" : "no");
  }
  double end_at = now_ms();
  x = seen + 1;
  __vigil_ar_end(END_R_W, &x);
  pthread_join(t, NULL);
  printf("remote finished after the end: %s\n", finished_at >= end_at ? "yes" : "no");
  fflush(stdout);
  return 0;
}
// HOLD: remote finished inside the AR: no
// HOLD: vigil: atomicity violation (RWW) on x at t.c:10:5
// HOLD: remote: write at t.c:31:3, thread {{[0-9]+}} ({{.*}}), seen by check
// HOLD: verdict: prevented: the remote write waited {{[0-9.]+}} ms, until this region ended
// HOLD: remote finished after the end: yes
// FIND: pauses 1
// BEGIN: remote finished inside the AR: no
// BEGIN: vigil: atomicity violation (RWW) on x at t.c:10:5
// BEGIN: remote: write at t.c:20:5, thread {{[0-9]+}} ({{.*}}), seen by begin
// BEGIN: verdict: prevented
// BEGIN: remote finished after the end: yes
// BEGIN-NOT: atomicity violation
// TIMEOUT: remote finished inside the AR: yes
// TIMEOUT: remote waited at least the timeout: yes
// TIMEOUT: vigil: atomicity violation (RWW) on x at t.c:10:5
// TIMEOUT: verdict: not prevented: the remote write waited the 100 ms timeout and went ahead
// TIMEOUT: remote finished after the end: no
// TIMEOUT: held 0
// TIMEOUT-NEXT: timeouts 1
// TIMEOUT: violations 1
// TIMEOUT-NEXT: prevented 0
// DETECT: remote finished inside the AR: yes
// DETECT: vigil: atomicity violation (RWW) on x at t.c:10:5
// DETECT: verdict: not prevented: detect mode records without holding
// DETECT: remote finished after the end: no
