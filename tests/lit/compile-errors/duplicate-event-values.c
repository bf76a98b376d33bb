// Identical value slots make identical events.
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
  // CHECK: {{.*}}duplicate-event-values.c:[[@LINE+1]]:47: error: vigil: event 'f(x) == 0' appears more than once in this assertion
  TESLA_WITHIN(syscall, previously(f(x) == 0, f(x) == 0));
}
