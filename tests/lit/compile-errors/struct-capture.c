// A struct automaton bound that would capture a value.
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
automaton(life, struct object *o) { o->state = 1; tesla_done; }

// CHECK: {{.*}}struct-capture.c:[[@LINE+1]]:71: error: vigil: a bound must be static: 'glob' would be captured at the site (use ANY or a constant)
TESLA_STRUCT_AUTOMATON(struct object *o, life, __tesla_global, call(f(glob)), returnfrom(op(o)));
