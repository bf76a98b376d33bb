// 64 assertions in one program (TESLA crashed with 50 or more): all are
// instrumented and checked, one of them fails.
// RUN: %vigil-cc -O1 %s -o %t
// RUN: env VIGIL_ON_FAILURE=log VIGIL_STATS=1 %t 2>&1 | FileCheck %s
#include <stdio.h>
#include <tesla.h>

void check(int k) { (void)k; }
int entry(int skip);
#define A(k) void site##k(void) { TESLA_WITHIN(entry, previously(call(check(k)))); }
#define A8(k) A(k##0) A(k##1) A(k##2) A(k##3) A(k##4) A(k##5) A(k##6) A(k##7)
A8(1) A8(2) A8(3) A8(4) A8(5) A8(6) A8(7) A8(8)
#define C(k) if (k != skip) check(k); site##k();
#define C8(k) C(k##0) C(k##1) C(k##2) C(k##3) C(k##4) C(k##5) C(k##6) C(k##7)
int entry(int skip) { C8(1) C8(2) C8(3) C8(4) C8(5) C8(6) C8(7) C8(8) return 0; }
int main(void) { entry(42); fputs("done\n", stderr); return 0; }
// CHECK-COUNT-1: vigil: assertion failed
// CHECK: values: {{.*}}= 42
// CHECK: done
// CHECK: vigil: statistics (64 assertions)
