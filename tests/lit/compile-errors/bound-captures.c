// Bounds must be static.
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

void t(int x) {
  // CHECK: {{.*}}bound-captures.c:[[@LINE+1]]:26: error: vigil: a bound must be static: 'x' would be captured at the site (use ANY or a constant)
  TESLA_PERTHREAD(call(f(x)), returnfrom(syscall), previously(call(g)));
}
