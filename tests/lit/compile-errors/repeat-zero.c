// A repetition with a maximum of 0.
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
// CHECK: {{.*}}repeat-zero.c:[[@LINE+1]]:45: error: vigil: repetition 'REPEAT(0, 0, call(f))' has a maximum of 0: it matches nothing
  TESLA_WITHIN(syscall, previously(call(g), REPEAT(0, 0, call(f))));
}
