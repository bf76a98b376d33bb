// An out-parameter in a call event.
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
// CHECK: {{.*}}out-parameter-call.c:[[@LINE+1]]:45: error: vigil: '&x' (an out-parameter) can only be matched in a return event (f(args) or f(args) == v): the pointer argument is read when the function returns
  TESLA_WITHIN(syscall, previously(call(get(&x))));
}
