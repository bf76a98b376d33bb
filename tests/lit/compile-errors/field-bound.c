// A field assignment as a bound.
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

void t(struct object *o) {
// CHECK: {{.*}}field-bound.c:[[@LINE+1]]:19: error: vigil: a bound must be call(f), returnfrom(f) or f(...) == v
  TESLA_PERTHREAD(o->state = 1, returnfrom(syscall), previously(call(g)));
}
