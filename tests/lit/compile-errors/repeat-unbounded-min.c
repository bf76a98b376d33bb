// ANY_REP as a minimum.
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
// CHECK: {{.*}}repeat-unbounded-min.c:[[@LINE+1]]:43: error: vigil: the minimum count of 'REPEAT(ANY_REP, ANY_REP, call(f))' cannot be ANY_REP
  TESLA_WITHIN(syscall, previously(REPEAT(ANY_REP, ANY_REP, call(f))));
}
