// An automaton without events.
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

// CHECK: {{.*}}automaton-no-events.c:[[@LINE+1]]:11: error: vigil: automaton 'life' has no events
automaton(life, struct object *o) {
  tesla_done;
}
