// An expression that is not an event.
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
// CHECK: {{.*}}not-an-event.c:[[@LINE+1]]:36: error: vigil: expected an event: call(f), returnfrom(f), f(args), f(args) == v or a field assignment o->f = v
  TESLA_WITHIN(syscall, previously(x + 1));
}
