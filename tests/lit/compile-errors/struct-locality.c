// A struct automaton with an unknown locality.
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

// CHECK: {{.*}}struct-locality.c:[[@LINE+1]]:48: error: vigil: the locality must be __tesla_global or __tesla_perthread
TESLA_STRUCT_AUTOMATON(struct object *o, life, 0, call(op(o)), returnfrom(op(o)));
