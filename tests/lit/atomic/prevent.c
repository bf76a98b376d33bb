// Prevent mode holds a remote access until the AR ends; the timeout lets
// it go when the end does not come; detect mode never holds.  Ordering is
// checked without trusting sleeps: the local thread waits until the remote
// thread really sleeps on the AR (the slot's waiter count) before it looks.
// RUN: %atomic-cc %s -o %t %atomic-libs
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ATOMIC_TIMEOUT_MS=20000 %t check 2>&1 | FileCheck %s --check-prefix=HOLD
// A begin of another thread is a remote access too: held the same way.  Having waited the
// AR out, its region is serial after it: not "ahead", its end is not checked as a remote
// access (it was, and recorded its write in the next region another thread had begun).
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ATOMIC_TIMEOUT_MS=20000 VIGIL_STATS=1 %t begin 2>&1 | FileCheck %s --check-prefix=BEGIN
// Find mode holds as prevent mode does (and pauses the first begin).
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ATOMIC_MODE=find VIGIL_ATOMIC_PAUSE_MS=1 VIGIL_ATOMIC_TIMEOUT_MS=20000 VIGIL_STATS=1 %t check 2>&1 | FileCheck %s --check-prefixes=HOLD,FIND
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ATOMIC_TIMEOUT_MS=100 VIGIL_STATS=1 %t timeout 2>&1 | FileCheck %s --check-prefix=TIMEOUT
// After the timeout the two regions overlap, and neither thread waits any more: the first
// region's end is then checked in the region that went ahead (the write at t.c:13
// breaks the remote thread's reader; without that check nothing was reported).
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ATOMIC_TIMEOUT_MS=100 VIGIL_STATS=1 %t ahead 2>&1 | FileCheck %s --check-prefix=AHEAD
// An owner that is runnable but starved of CPU (preempted: here a busy thread shares its CPU
// at a higher priority) is waited for past the timeout, up to VIGIL_ATOMIC_RUNNABLE_MS; with 0,
// the plain timeout lets the remote go.  An owner that computes past the timeout (it runs) is
// waited for one timeout more, then let go.
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ATOMIC_TIMEOUT_MS=10 VIGIL_STATS=1 %t starved 2>&1 | FileCheck %s --check-prefix=STARVED
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ATOMIC_TIMEOUT_MS=10 VIGIL_ATOMIC_RUNNABLE_MS=0 VIGIL_STATS=1 %t starved 2>&1 | FileCheck %s --check-prefix=STARVED-PLAIN
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ATOMIC_TIMEOUT_MS=20 VIGIL_STATS=1 %t busy 2>&1 | FileCheck %s --check-prefix=BUSY
// An owner asleep in the program's own condition wait inside its region, waiting for the
// remote itself, is a deadlock the timeout would end: the remote goes ahead after
// VIGIL_ATOMIC_BLOCKED_MS instead (0: the whole timeout).
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ATOMIC_TIMEOUT_MS=2000 VIGIL_STATS=1 %t blocked 2>&1 | FileCheck %s --check-prefix=BLOCKED
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ATOMIC_TIMEOUT_MS=200 VIGIL_ATOMIC_BLOCKED_MS=0 VIGIL_STATS=1 %t blocked 2>&1 | FileCheck %s --check-prefix=BLOCKED-PLAIN
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ATOMIC_MODE=detect %t detect 2>&1 | FileCheck %s --check-prefix=DETECT
#include <sched.h>

#include "program.h"

static const char *how;
static atomic_int done, remote_in, local_out;
static pthread_mutex_t handshake = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t finished = PTHREAD_COND_INITIALIZER;
static double waited_ms, finished_at;

static void *remote(void *arg) {
  (void)arg;
  double t0 = now_ms();
  if (!strcmp(how, "ahead")) {
    __vigil_ar_begin(AR_READER, &x, 0); /* times out, then goes ahead */
    int v = x;
    atomic_store(&remote_in, 1);
    while (!atomic_load(&local_out))
      sleep_ms(1);
    x = v + 1;
    __vigil_ar_end(END_R_W, &x);
  } else if (!strcmp(how, "begin")) {
    __vigil_ar_begin(AR_WRITER, &x, 5); /* waits here: x is in the local AR */
    x = 5;
    __vigil_ar_end(END_W_W, &x);
  } else {
    checked_access(&x, SITE_WRITE);
    x = 5;
  }
  finished_at = now_ms();
  waited_ms = finished_at - t0;
  pthread_mutex_lock(&handshake);
  atomic_store(&done, 1);
  pthread_cond_broadcast(&finished);
  pthread_mutex_unlock(&handshake);
  return NULL;
}

/* "starved": this thread and a busy hog share CPU 0 for 60 ms, this one
 * under SCHED_IDLE (weight 3 against the hog's 1024): runnable all along,
 * it hardly runs until the hog stops. */
static atomic_int hog_done;
static void pin_to_cpu0(void) {
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(0, &one);
  pthread_setaffinity_np(pthread_self(), sizeof one, &one);
}
static void *hog(void *arg) {
  (void)arg;
  pin_to_cpu0();
  for (double until = now_ms() + 60; now_ms() < until;)
    ;
  atomic_store(&hog_done, 1);
  return NULL;
}
static void starve_self(void) {
  pthread_t h;
  pthread_create(&h, NULL, hog, NULL); /* before the policy: a new thread inherits it */
  pthread_detach(h);
  pin_to_cpu0();
  struct sched_param none = {0};
  pthread_setschedparam(pthread_self(), SCHED_IDLE, &none);
  while (!atomic_load(&hog_done))
    ;
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
  } else if (!strcmp(how, "ahead")) {
    while (!atomic_load(&remote_in))
      sleep_ms(1);
    x = seen + 1;
    __vigil_ar_end(END_R_W, &x);
    atomic_store(&local_out, 1);
    pthread_join(t, NULL);
    return 0;
  } else if (!strcmp(how, "timeout")) {
    await_sleepers(1); /* held ... */
    await_sleepers(0); /* ... then let go by the timeout, the AR still running */
    pthread_join(t, NULL);
    printf("remote finished inside the AR: %s\n", done ? "yes" : "no");
    printf("remote waited at least the timeout: %s\n", waited_ms >= 95 ? "yes" : "no");
  } else if (!strcmp(how, "busy")) {
    await_sleepers(1);
    for (double until = now_ms() + 150; now_ms() < until;)
      ; /* on a CPU all along, 7 timeouts long */
    printf("remote finished inside the AR: %s\n", done ? "yes" : "no");
  } else if (!strcmp(how, "blocked")) {
    double t0 = now_ms();
    pthread_mutex_lock(&handshake);
    while (!atomic_load(&done))
      pthread_cond_wait(&finished, &handshake); /* the remote's write is held on this AR */
    pthread_mutex_unlock(&handshake);
    printf("remote finished inside the AR after %s\n", now_ms() - t0 < 1000 ? "less than 1 s" : "1 s or more");
  } else if (!strcmp(how, "starved")) {
    await_sleepers(1);
    starve_self();
    printf("remote finished inside the AR: %s\n", done ? "yes" : "no");
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
// BEGIN-NOT: atomicity violation (
// BEGIN: held 1
// BEGIN: timeouts 0
// BEGIN: ends_ahead 0
// BEGIN: vigil: 1 atomicity violation (1 prevented)
// TIMEOUT: remote finished inside the AR: yes
// TIMEOUT: remote waited at least the timeout: yes
// TIMEOUT: vigil: atomicity violation (RWW) on x at t.c:10:5
// TIMEOUT: verdict: not prevented: the remote write waited the 100 ms timeout and went ahead
// TIMEOUT: remote finished after the end: no
// TIMEOUT: held 0
// TIMEOUT-NEXT: timeouts 1
// TIMEOUT: violations 1
// TIMEOUT-NEXT: prevented 0
// AHEAD-NOT: atomicity violation
// AHEAD: vigil: atomicity violation (RWW) on x at t.c:10:5
// AHEAD: remote: write at t.c:13:5, thread {{[0-9]+}} ({{.*}}), seen by end
// AHEAD: verdict: not prevented: this region and the remote write's overlapped after a 100 ms timeout
// AHEAD-NOT: atomicity violation
// AHEAD: timeouts 1
// AHEAD: violations 1
// AHEAD-NEXT: prevented 0
// AHEAD: ends_ahead 2
// STARVED: remote finished inside the AR: no
// STARVED: verdict: prevented: the remote write waited {{[0-9.]+}} ms, until this region ended
// STARVED: remote finished after the end: yes
// STARVED: timeouts 0
// STARVED: waits_extended 1
// STARVED-PLAIN: remote finished inside the AR: yes
// STARVED-PLAIN: verdict: not prevented: the remote write waited the 10 ms timeout and went ahead
// STARVED-PLAIN: timeouts 1
// STARVED-PLAIN: waits_extended 0
// BUSY: remote finished inside the AR: yes
// BUSY: verdict: not prevented: the remote write waited the 20 ms timeout and went ahead
// BUSY: timeouts 1
// BUSY: waits_extended 1
// BLOCKED: remote finished inside the AR after less than 1 s
// BLOCKED: verdict: not prevented: the remote write went ahead after {{[0-9]+}} ms: this region's owner slept in one of the program's locks or condition waits (a likely deadlock)
// BLOCKED: timeouts 1
// BLOCKED: waits_cut 1
// BLOCKED-PLAIN: verdict: not prevented: the remote write waited the 200 ms timeout and went ahead
// BLOCKED-PLAIN: waits_cut 0
// DETECT: remote finished inside the AR: yes
// DETECT: vigil: atomicity violation (RWW) on x at t.c:10:5
// DETECT: verdict: not prevented: detect mode records without holding
// DETECT: remote finished after the end: no
