// The site in an automaton definition.
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
  o->state = 1;
// CHECK: {{.*}}automaton-site.c:[[@LINE+1]]:3: error: vigil: TESLA_ASSERTION_SITE cannot appear in an automaton definition
  TESLA_ASSERTION_SITE;
  tesla_done;
}
