// flags(...) of a bool argument.
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
int yes(_Bool);

void t(int x) {
// CHECK: {{.*}}flags-bool.c:[[@LINE+1]]:40: error: vigil: flags(...) applies to integer values, not to '_Bool'
  TESLA_WITHIN(syscall, previously(yes(flags(1)) == 0));
}
