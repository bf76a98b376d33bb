// More than 8 values in one event.
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
  // CHECK: {{.*}}too-many-values.c:[[@LINE+1]]:36: error: vigil: event 'nine(1, 2, 3, 4, 5, 6, 7, 8, 9) == 0' has more than 8 values
  TESLA_WITHIN(syscall, previously(nine(1, 2, 3, 4, 5, 6, 7, 8, 9) == 0));
}
