// TESLA_STRUCT_AUTOMATON naming a function that is not an automaton.
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

// CHECK: {{.*}}struct-not-automaton.c:[[@LINE+1]]:42: error: vigil: 'op' is not an automaton: declare it with automaton(name, ...)
TESLA_STRUCT_AUTOMATON(struct object *o, op, __tesla_global, call(op(o)), returnfrom(op(o)));
