// A statement that is not an event in an automaton.
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
// CHECK: {{.*}}automaton-statement.c:[[@LINE+1]]:3: error: vigil: an automaton body lists events, one statement each, and ends with tesla_done
  if (o) o->state = 1;
  tesla_done;
}
