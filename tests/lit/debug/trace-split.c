// A function traced in its body is split in two (compiler/pass/TraceClone.cpp):
// with the stream off it runs its own body, with the stream on its traced
// copy, which has its own debug info with the same name and lines.  gdb
// stops once per call at a breakpoint on the function and at one on a line
// of its body, stream off or on (the flag test before the jump into the
// copy has line 0, so a breakpoint on the function is not placed before
// it), and shows the arguments and a backtrace into main.  With the
// stream on the stops are in the copy (the second location, after work).
// REQUIRES: gdb
// RUN: %vigil-cc --vigil-trace=work -g -O0 %s -o %t0
// RUN: %vigil-cc --vigil-trace=work -g -O1 %s -o %t1
// RUN: gdb -nx -batch -ex 'break work' -ex 'break %s:20' -ex run -ex bt -ex continue -ex continue -ex continue -ex continue %t0 2>&1 | FileCheck %s --check-prefixes=CHECK,OFF
// RUN: env VIGIL_STREAM=file:%t0.bson gdb -nx -batch -ex 'break work' -ex 'break %s:20' -ex run -ex bt -ex continue -ex continue -ex continue -ex continue %t0 2>&1 | FileCheck %s --check-prefixes=CHECK,ON
// RUN: gdb -nx -batch -ex 'break work' -ex 'break %s:20' -ex run -ex bt -ex continue -ex continue -ex continue -ex continue %t1 2>&1 | FileCheck %s --check-prefixes=CHECK,OFF
// RUN: env VIGIL_STREAM=file:%t1.bson gdb -nx -batch -ex 'break work' -ex 'break %s:20' -ex run -ex bt -ex continue -ex continue -ex continue -ex continue %t1 2>&1 | FileCheck %s --check-prefixes=CHECK,ON
#include <stdio.h>

__attribute__((noinline)) long work(long a, long b) {
  long s = a * 3;
  s += b;
  return s;
}

int main(void) {
  long t = 0;
  for (int i = 0; i < 2; i++)
    t += work(i, 5);
  printf("t %ld\n", t);
  return 0;
}

// work's breakpoint is on its first line, 19; the line breakpoint on 20.
// CHECK:      Breakpoint 1 at {{.*}}: work. (2 locations)
// CHECK:      Breakpoint 2 at {{.*}}trace-split.c:20. (2 locations)
// OFF:        Breakpoint 1.1, work ({{.*}}) at {{.*}}trace-split.c:19
// ON:         Breakpoint 1.2, work ({{.*}}) at {{.*}}trace-split.c:19
// CHECK:      #0 {{.*}}work
// CHECK:      main () at {{.*}}trace-split.c
// CHECK-NOT:  Breakpoint
// OFF:        Breakpoint 2.1, work ({{.*}}) at {{.*}}trace-split.c:20
// ON:         Breakpoint 2.2, work ({{.*}}) at {{.*}}trace-split.c:20
// CHECK-NOT:  Breakpoint
// OFF:        Breakpoint 1.1, work
// ON:         Breakpoint 1.2, work
// CHECK-NOT:  Breakpoint
// OFF:        Breakpoint 2.1, work
// ON:         Breakpoint 2.2, work
// CHECK-NOT:  Breakpoint
// CHECK:      t 13
// CHECK:      exited normally
