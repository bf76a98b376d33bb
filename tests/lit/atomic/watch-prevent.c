// The watchpoint detector (runtime/atomic_watch*.c) with no access checks
// built in: a plain store of another thread inside an AR traps, is undone
// and runs again after the AR's end, so the final value proves the serial
// order (local read, local write, then the remote write).  A remote read is
// re-executed after the end and sees the AR's second write.  An xchg is
// not re-executable: recorded, not prevented.  Detect mode never holds.
// (-u vg_wregs: links the backend from libvigil.a; vigil-cc links it whole)
// RUN: %atomic-cc %s -o %t -Wl,-u,vg_wregs %atomic-libs
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ATOMIC_TIMEOUT_MS=20000 VIGIL_STATS=1 %t write 2>&1 | FileCheck %s --check-prefix=WRITE
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ATOMIC_TIMEOUT_MS=20000 %t rmw 2>&1 | FileCheck %s --check-prefix=RMW
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ATOMIC_TIMEOUT_MS=20000 %t read 2>&1 | FileCheck %s --check-prefix=READ
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ATOMIC_TIMEOUT_MS=20000 %t xchg 2>&1 | FileCheck %s --check-prefix=XCHG
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ATOMIC_MODE=detect %t write 2>&1 | FileCheck %s --check-prefix=DETECT
#include "watch.h"

static const char *how;
static atomic_int done;
static int remote_read;

static void *remote(void *arg) {
  (void)arg;
  if (!strcmp(how, "read"))
    remote_read = load_x();
  else if (!strcmp(how, "xchg"))
    xchg_x(5);
  else if (!strcmp(how, "rmw"))
    add_x(100);
  else
    store_x(5);
  atomic_store(&done, 1);
  return NULL;
}

int main(int argc, char **argv) {
  how = argc > 1 ? argv[1] : "write";
  int detect = getenv("VIGIL_ATOMIC_MODE") && !strcmp(getenv("VIGIL_ATOMIC_MODE"), "detect");
  watch_register();
  pthread_t t;
  x = 1;
  if (!strcmp(how, "read")) { /* W, remote R, W: WRW */
    __vigil_ar_begin(AR_WRITER, &x, 7);
    store_x(7);
  } else { /* R, remote W, W: RWW */
    __vigil_ar_begin(AR_READER, &x, 0);
  }
  int seen = load_x();
  pthread_create(&t, NULL, remote, NULL);
  if (detect || !strcmp(how, "xchg"))
    pthread_join(t, NULL); /* not held: finishes inside the AR */
  else
    await_sleepers(1);
  printf("remote finished inside the AR: %s\n", done ? "yes" : "no");
  printf("x inside the AR: %d\n", load_x());
  store_x(seen + 1);
  __vigil_ar_end(!strcmp(how, "read") ? END_W_W : END_R_W, &x);
  pthread_join(t, NULL);
  printf("final x: %d\n", load_x());
  if (!strcmp(how, "read"))
    printf("remote read: %d\n", remote_read);
  return 0;
}
// WRITE: remote finished inside the AR: no
// WRITE-NEXT: x inside the AR: 1
// WRITE: vigil: atomicity violation (RWW) on x at w.c:10:5
// WRITE: remote: write at {{.*}}watch.h:{{[0-9]+}}:{{[0-9]+}}, thread {{[0-9]+}} ({{.*}}), seen by watchpoint
// WRITE: verdict: prevented: the remote write waited {{[0-9.]+}} ms, until this region ended
// WRITE: #0 {{.*}} in store_x
// WRITE: final x: 5
// WRITE: vigil: atomic watchpoints (4 registers): arms (ioctl) 1, reuses (no syscall) 0, stale traps {{[01]}}, own traps {{[0-9]+}}, remote traps 1, writes undone 1, re-executed 1, not re-executable 0
// RMW: remote finished inside the AR: no
// RMW-NEXT: x inside the AR: 1
// RMW: vigil: atomicity violation (RWW) on x at w.c:10:5
// RMW: verdict: prevented
// RMW: final x: 102
// READ: remote finished inside the AR: no
// READ-NEXT: x inside the AR: 7
// READ: vigil: atomicity violation (WRW) on x at w.c:20:5
// READ: verdict: prevented: the remote read waited
// READ: final x: 8
// READ-NEXT: remote read: 8
// XCHG: remote finished inside the AR: yes
// XCHG-NEXT: x inside the AR: 5
// XCHG: vigil: atomicity violation (RWW) on x at w.c:10:5
// XCHG: verdict: not prevented: the remote access could not be held
// XCHG: final x: 2
// DETECT: remote finished inside the AR: yes
// DETECT-NEXT: x inside the AR: 5
// DETECT: verdict: not prevented: detect mode records without holding
// DETECT: final x: 2
