// A free variable of struct type.
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
// CHECK: {{.*}}free-variable-type.c:[[@LINE+1]]:48: error: vigil: free variable 'v' has type 'struct s'; only integer, pointer, enum and bool variables of at most 64 bits can be free
  TESLA_WITHIN(syscall, previously(({ struct s v; foo(x) == 0; })));
}
