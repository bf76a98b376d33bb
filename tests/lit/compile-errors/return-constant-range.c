// A constant the return type cannot hold.
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
unsigned char uc(void);

void t(int x) {
  // CHECK: {{.*}}return-constant-range.c:[[@LINE+1]]:44: error: vigil: constant '-1' is out of range of the return type 'unsigned char' of 'uc'
  TESLA_WITHIN(syscall, previously(uc() == -1));
}
