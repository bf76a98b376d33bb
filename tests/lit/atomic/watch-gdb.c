// gdb still works on a program whose atomic regions use the watchpoint
// detector: a breakpoint is hit, the backtrace is right, and the program
// runs to its end.  Under ptrace gdb sees every SIGTRAP first, ours too:
// it stops on them ("Program received signal SIGTRAP") and, on continue,
// does not deliver them, so while debugging a remote access is not held
// (use VIGIL_ATOMIC_DETECTOR=begin under a debugger, or continue; the
// batch ends with an echo: gdb -batch exits 1 when its last command failed).
// RUN: %atomic-cc %s -o %t -Wl,-u,vg_wregs %atomic-libs
// RUN: gdb -nx -batch -ex 'break main' -ex run -ex bt -ex delete -ex continue -ex continue -ex continue -ex continue -ex continue -ex continue -ex continue -ex continue -ex continue -ex continue -ex continue -ex continue -ex continue -ex continue -ex continue -ex continue -ex continue -ex continue -ex continue -ex continue -ex continue -ex continue -ex continue -ex continue -ex 'echo end\n' %t 2>&1 | FileCheck %s --check-prefixes=CHECK,WATCH
// RUN: env VIGIL_ATOMIC_DETECTOR=begin gdb -nx -batch -ex 'break store_x' -ex run -ex bt -ex delete -ex continue %t 2>&1 | FileCheck %s --check-prefixes=CHECK,BEGIN
#include "watch.h"

static void *remote(void *arg) {
  (void)arg;
  store_x(5);
  return NULL;
}

int main(void) {
  watch_register();
  for (int i = 0; i < 3; i++) {
    __vigil_ar_begin(AR_READER, &x, 0);
    int seen = load_x();
    store_x(seen + 1);
    __vigil_ar_end(END_R_W, &x);
  }
  pthread_t t;
  pthread_create(&t, NULL, remote, NULL);
  pthread_join(t, NULL);
  printf("x = %d\n", load_x());
  return 0;
}
// WATCH: Breakpoint 1, main
// WATCH: Program received signal SIGTRAP
// BEGIN: Breakpoint 1, store_x
// BEGIN: #1 {{.*}} in main () at {{.*}}watch-gdb.c
// CHECK: x = 5
// CHECK: exited normally
