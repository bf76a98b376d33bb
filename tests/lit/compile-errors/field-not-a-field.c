// An assignment to a variable, not a field.
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
// CHECK: {{.*}}field-not-a-field.c:[[@LINE+1]]:36: error: vigil: the left side of a field-assignment event must be a struct field (o->f or o.f), not 'glob'
  TESLA_WITHIN(syscall, previously(glob = 1));
}
