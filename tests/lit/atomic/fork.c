// fork: in the child only the forking thread exists.  Its own AR goes on
// (and is reported there when a child thread breaks it); the ARs of the
// parent's other threads are gone, so a child's access to their variable
// is not held (20 s timeout: a hold would show), and no slot leaks.
// RUN: %atomic-cc %s -o %t %atomic-libs
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ATOMIC_TIMEOUT_MS=20000 VIGIL_BACKTRACE=0 %t 2>&1 | FileCheck %s
#include <sys/wait.h>
#include <unistd.h>

#include "program.h"

static atomic_int holding, release_it;

static void *holder(void *arg) { /* a parent thread in an AR on x across the fork */
  (void)arg;
  __vigil_ar_begin(AR_WRITER, &x, 1);
  atomic_store(&holding, 1);
  while (!atomic_load(&release_it))
    sleep_ms(1);
  __vigil_ar_end(END_W_W, &x);
  return NULL;
}

static void *breaker(void *arg) { /* a child thread writes y inside main's AR */
  (void)arg;
  checked_access(&y, SITE_Y_WRITE);
  return NULL;
}

int main(void) {
  pthread_t h;
  pthread_create(&h, NULL, holder, NULL);
  while (!atomic_load(&holding))
    sleep_ms(1);
  __vigil_ar_begin(AR_OTHER, &y, 0); /* main's own AR, across the fork */
  pid_t pid = fork();
  if (pid == 0) {
    double t0 = now_ms();
    checked_access(&x, SITE_WRITE);
    printf("child: access to x held: %s\n", now_ms() - t0 > 5000 ? "yes" : "no");
    pthread_t b; /* held by main's AR, which the child inherited */
    pthread_create(&b, NULL, breaker, NULL);
    await_sleepers(1);
    __vigil_ar_end(END_OTHER, &y);
    pthread_join(b, NULL);
    printf("child: slots in use %u, filter buckets set %u\n", busy_slots(), busy_buckets());
    _exit(0);
  }
  int status;
  waitpid(pid, &status, 0);
  printf("parent: child exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  __vigil_ar_end(END_OTHER, &y);
  atomic_store(&release_it, 1);
  pthread_join(h, NULL);
  printf("parent: slots in use %u, filter buckets set %u\n", busy_slots(), busy_buckets());
  return 0;
}
// CHECK: child: access to x held: no
// CHECK: vigil: atomicity violation (RWW) on y at t.c:40:5
// CHECK: remote: write at t.c:42:3, thread {{[0-9]+}} ({{.*}}), seen by check
// CHECK: verdict: prevented
// CHECK: child: slots in use 0, filter buckets set 0
// CHECK: parent: child exited 0
// CHECK-NOT: atomicity violation
// CHECK: parent: slots in use 0, filter buckets set 0
