// Values of a function returning a struct.
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
  // CHECK: {{.*}}struct-return.c:[[@LINE+1]]:36: error: vigil: 'mk' has a struct, union or complex parameter or return type; its arguments and return value cannot be matched
  TESLA_WITHIN(syscall, previously(call(mk(x))));
}
