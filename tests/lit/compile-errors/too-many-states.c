// A pattern whose automaton exceeds the model's state limit.
// RUN: not %clang-vigil -fsyntax-only %s 2>&1 | FileCheck %s
#include <tesla.h>

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

void t(int x) {
// CHECK: {{.*}}too-many-states.c:[[@LINE+1]]:3: error: vigil: cannot build the automaton of this assertion: the automaton needs more than 4096 states
  TESLA_WITHIN(syscall, eventually(REPEAT(4100, 4100, call(f))));
}
