// A struct automaton whose automaton takes two parameters.
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
automaton(two, struct object *o, int n) { o->state = n; tesla_done; }

// CHECK: {{.*}}struct-arity.c:[[@LINE+1]]:42: error: vigil: automaton 'two' takes 2 parameters; a struct automaton's takes one, the subject
TESLA_STRUCT_AUTOMATON(struct object *o, two, __tesla_global, call(op(o)), returnfrom(op(o)));
