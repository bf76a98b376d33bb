// A free variable with an initialiser.
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
// CHECK: {{.*}}free-variable-initialiser.c:[[@LINE+1]]:43: error: vigil: free variable 'v' cannot have an initialiser
  TESLA_WITHIN(syscall, previously(({ int v = 1; foo(v) == 0; })));
}
