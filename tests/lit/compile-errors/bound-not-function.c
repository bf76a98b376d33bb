// TESLA_WITHIN's bound must be a function.
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
  // CHECK: {{.*}}bound-not-function.c:[[@LINE+1]]:16: error: vigil: 'glob' is not a function
  TESLA_WITHIN(glob, previously(call(f)));
}
