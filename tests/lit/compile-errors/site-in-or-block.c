// The site cannot be an OR member.
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
  // CHECK: {{.*}}site-in-or-block.c:[[@LINE+1]]:46: error: vigil: TESLA_ASSERTION_SITE cannot be part of an OR block
  TESLA_WITHIN(syscall, TSEQUENCE(call(f) || TESLA_ASSERTION_SITE));
}
