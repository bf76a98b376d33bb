// A declaration that is not a free variable.
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
// CHECK: {{.*}}free-variable-declaration.c:[[@LINE+1]]:51: error: vigil: only free variables can be declared in an assertion
  TESLA_WITHIN(syscall, previously(({ typedef int T; foo(x) == 0; })));
}
