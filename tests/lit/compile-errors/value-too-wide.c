// A value wider than 64 bits.
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
  // CHECK: {{.*}}value-too-wide.c:[[@LINE+1]]:45: error: vigil: value '1' has type '__int128', which is wider than 64 bits
  TESLA_WITHIN(syscall, previously(big() == 1));
}
