// A repetition count that is not a constant.
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
// CHECK: {{.*}}repeat-non-constant.c:[[@LINE+1]]:41: error: vigil: repetition count 'x' is not an integer constant expression
  TESLA_WITHIN(syscall, previously(UPTO(x, call(f))));
}
