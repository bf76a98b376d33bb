// A struct automaton whose start event does not name the subject.
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

// CHECK: {{.*}}struct-subject-missing.c:[[@LINE+1]]:64: error: vigil: the start event 'call(g)' of a struct automaton must name the subject 'o' as a value (e.g. call(init(o)))
TESLA_STRUCT_AUTOMATON(struct object *o, life, __tesla_global, call(g), returnfrom(op(o)));
