// An automaton parameter inside an expression.
// RUN: not %clang-vigil -fsyntax-only %s 2>&1 | FileCheck %s
#include <tesla-macros.h>

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

automaton(life, struct object *o, int n) {
// CHECK: {{.*}}automaton-parameter-misuse.c:[[@LINE+1]]:14: error: vigil: automaton parameter 'n' can only be used as a whole value of an event, not in 'n + 1'
  o->state = n + 1;
  tesla_done;
}
