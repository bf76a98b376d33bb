// Assertions and monitors in one program, on the same libc function: both
// instrumentations see every call, and both report.
// RUN: %vigil-cc --vigil-monitor=%root/examples/mutex/mutex.bind -O1 %s -o %t -lpthread 2>&1 | FileCheck %s --check-prefix=BUILD
// RUN: env VIGIL_ON_FAILURE=log VIGIL_STATS=1 %t 2>&1 | FileCheck %s
#include <pthread.h>
#include <stdio.h>
#include <tesla.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int update(int x);
void check(void) { TESLA_WITHIN(update, previously(pthread_mutex_lock(ANY(ptr)) == 0)); }
int update(int x) {
  if (x)
    pthread_mutex_lock(&m);
  check();
  if (x)
    pthread_mutex_unlock(&m);
  return 0;
}
int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  update(1);
  update(0);                /* the assertion fails */
  pthread_mutex_unlock(&m); /* the monitor fails */
  puts("done");
  return 0;
}
// BUILD: vigil: warning: {{.*}}mutex.bind:18: function 'pthread_mutex_trylock' is never called or defined in this program
// BUILD: vigil: warning: {{.*}}mutex.bind:23: function 'pthread_mutex_destroy' is never called or defined in this program

// CHECK: vigil: assertion failed at {{.*}}monitor-with-assertion.c:11:20
// CHECK: reason:{{ +}}required event pthread_mutex_lock(ANY(ptr)) == 0 did not happen before the assertion site (missing-before-site)
// CHECK: vigil: monitor violation: mutex
// CHECK: reason:{{ +}}event unlock is not allowed in state unlocked (monitor-invalid-event)
// CHECK: done
// CHECK: vigil: statistics (1 assertions)
// CHECK: vigil: monitors
// CHECK-NEXT: monitor{{ +}}events violations dropped
// CHECK-NEXT: mutex (mutex.bind){{ +}}3{{ +}}1{{ +}}0
