// No hardware watchpoints: vg_atomic_watch_init says why in one line, the
// core falls back to begins only, and the program runs to its end.
// VIGIL_ATOMIC_WATCH_FAIL is a TEST HOOK (runtime/atomic_watch.c): init
// fails as perf_event_open would with that error.  The real thing: run as
// an unprivileged user (on this kernel perf_event_paranoid 2 and 3 still
// allow user-space breakpoints, so that run must work), and with every
// register taken (VIGIL_ATOMIC_WATCH_REGS=1 is still served).
// RUN: %atomic-cc %s -o %t -Wl,-u,vg_wregs %atomic-libs
// RUN: env VIGIL_ATOMIC_WATCH_FAIL=EACCES %t 2>&1 | FileCheck %s --check-prefixes=CHECK,EACCES
// RUN: env VIGIL_ATOMIC_WATCH_FAIL=ENOENT %t 2>&1 | FileCheck %s --check-prefixes=CHECK,ENOENT
// RUN: env VIGIL_ATOMIC_WATCH_FAIL=ENOSPC %t 2>&1 | FileCheck %s --check-prefixes=CHECK,ENOSPC
// RUN: env VIGIL_ATOMIC_WATCH_FAIL=EINVAL %t 2>&1 | FileCheck %s --check-prefixes=CHECK,EINVAL
// RUN: chmod 755 %t && setpriv --reuid=nobody --regid=nogroup --clear-groups env VIGIL_STATS=1 VIGIL_ATOMIC_WATCH_REGS=1 %t 2>&1 | FileCheck %s --check-prefix=USER
#include "watch.h"

int main(void) {
  watch_register();
  __vigil_ar_begin(AR_READER, &x, 0);
  int seen = load_x();
  store_x(seen + 1);
  __vigil_ar_end(END_R_W, &x);
  printf("ran to the end, x = %d\n", load_x());
  return 0;
}
// EACCES: vigil: atomic regions: hardware watchpoints: perf_event_open is not permitted (kernel.perf_event_paranoid={{-?[0-9]+}}; user-space breakpoints need <= 2, or CAP_PERFMON)
// ENOENT: vigil: atomic regions: hardware watchpoints: this machine or VM offers no hardware breakpoints to perf (no debug registers?)
// ENOSPC: vigil: atomic regions: hardware watchpoints: every debug register is already taken (a debugger's hardware watchpoints?)
// EINVAL: vigil: atomic regions: hardware watchpoints: the kernel does not know perf sigtrap/inherit_thread (Linux 5.13 or later needed)
// CHECK: hardware watchpoints are not available here; only a begin of another thread's atomic region is seen as a remote access
// CHECK: ran to the end, x = 1
// USER-NOT: hardware watchpoints:
// USER: ran to the end, x = 1
// USER: vigil: atomic regions (prevent mode, watchpoints)
// USER: vigil: atomic watchpoints (1 registers): arms (ioctl) 1
