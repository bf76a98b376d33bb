// More than 16 captured values.
// RUN: not %clang-vigil -fsyntax-only %s 2>&1 | FileCheck %s
#include <tesla.h>

struct s { int a; };
struct s mk(int);
int sv(struct s);
int f(int);
int g(void);
int h(void);
void v(int);
double d(double);
int vf(int, ...);
int nine(int, int, int, int, int, int, int, int, int);
__int128 big(void);
int glob;
int syscall(void);

void t(int a0, int a1, int a2, int a3, int a4, int a5, int a6, int a7, int a8, int a9, int a10, int a11, int a12, int a13, int a14, int a15, int a16) {
  // CHECK: {{.*}}too-many-captures.c:[[@LINE+1]]:257: error: vigil: more than 16 captured values in one assertion
  TESLA_WITHIN(syscall, previously(call(v(a0)), call(v(a1)), call(v(a2)), call(v(a3)), call(v(a4)), call(v(a5)), call(v(a6)), call(v(a7)), call(v(a8)), call(v(a9)), call(v(a10)), call(v(a11)), call(v(a12)), call(v(a13)), call(v(a14)), call(v(a15)), call(v(a16))));
}
