// An automaton that refers to itself.
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
automaton(loop, struct object *o);
automaton(loop, struct object *o) { o->state = 1; loop(o); tesla_done; }

// CHECK: {{.*}}automaton-recursive.c:[[@LINE+1]]:1: error: vigil: cannot build the automaton of this assertion: automaton 'loop' refers to itself
TESLA_STRUCT_AUTOMATON(struct object *o, loop, __tesla_global, call(op(o)), returnfrom(op(o)));
