// More than 8 free variables.
// RUN: not %clang-vigil -fsyntax-only %s 2>&1 | FileCheck %s
#include <tesla.h>

struct s { int a; };
struct big { long a, b; };
struct object { int refcount; int state; int *p; unsigned bf : 3; };
struct { int a; } *anon;
int f(int);
int g(void);
int foo(int);
int bar(int);
int get(int *out);
int get_big(struct big *out);
void op(struct object *o);
int glob;
int syscall(void);

void t(int x) {
// CHECK: {{.*}}too-many-free-variables.c:[[@LINE+1]]:69: error: vigil: more than 8 free variables in one assertion
  TESLA_WITHIN(syscall, previously(({ int a, b, c, d, e, f1, g1, h, i; foo(a) == 0; })));
}
