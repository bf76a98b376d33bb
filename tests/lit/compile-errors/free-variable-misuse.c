// A free variable inside a larger expression.
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
// CHECK: {{.*}}free-variable-misuse.c:[[@LINE+1]]:63: error: vigil: free variable 'v' can only be used as a whole value of an event (an argument, '&v', a return value, a field's object or value), not in 'v + 1'
  TESLA_WITHIN(syscall, previously(({ int v; foo(v) == 0; bar(v + 1) == 0; })));
}
