// More than 8 top-level alternatives.
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
  // CHECK: {{.*}}too-many-alternatives.c:[[@LINE+1]]:233: error: vigil: more than 8 alternatives in one assertion
  TESLA_WITHIN(syscall, previously(call(v(0))) || previously(call(v(1))) || previously(call(v(2))) || previously(call(v(3))) || previously(call(v(4))) || previously(call(v(5))) || previously(call(v(6))) || previously(call(v(7))) || previously(call(v(8))));
}
