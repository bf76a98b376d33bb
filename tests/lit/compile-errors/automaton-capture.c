// An automaton definition naming a global variable.
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

automaton(life, struct object *o) {
// CHECK: {{.*}}automaton-capture.c:[[@LINE+1]]:14: error: vigil: 'glob' would be captured, but automaton definitions and struct automata have no site: use their parameters, constants, ANY(...) or free variables
  o->state = glob;
  tesla_done;
}
