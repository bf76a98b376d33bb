// Two frames of one stack that share a slot of the symbolizer's cache
// (return addresses equal modulo 4096: each caller is aligned to 4096 and
// calls at the same offset) are both named, in every report: the second
// used to evict the first's answer before it was read, so every other
// report printed one frame unsymbolized.
// RUN: %vigil-cc -O1 -g %s -o %t
// RUN: env VIGIL_ON_FAILURE=log %t 2>&1 | FileCheck %s
#include <tesla.h>

void check(void) {}
int bound(void);
__attribute__((noinline)) void site(void) { TESLA_WITHIN(bound, previously(call(check))); }
__attribute__((noinline, aligned(4096))) void outer(void) { site(); __asm__ volatile(""); }
__attribute__((noinline, aligned(4096))) void outer2(void) { outer(); __asm__ volatile(""); }
__attribute__((noinline)) int bound(void) { outer2(); return 0; }

int main(void) {
  bound();
  bound();
  bound();
  return 0;
}
// CHECK: vigil: assertion failed at {{.*}}symbolize-collide.c:12:45
// CHECK: in outer {{.*}}
// CHECK-NEXT: in outer2
// CHECK: vigil: assertion failed at {{.*}}symbolize-collide.c:12:45
// CHECK: in outer {{.*}}
// CHECK-NEXT: in outer2
// CHECK: vigil: assertion failed at {{.*}}symbolize-collide.c:12:45
// CHECK: in outer {{.*}}
// CHECK-NEXT: in outer2
