// A statement that is neither a declaration nor an event.
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
// CHECK: {{.*}}free-variable-statement.c:[[@LINE+1]]:46: error: vigil: a statement expression in an assertion declares free variables and lists events; this statement is neither
  TESLA_WITHIN(syscall, previously(({ int v; if (x) foo(v); bar(v) == 0; })));
}
