// An OR block with too many combinations of its members.
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
void v(int);

void t(int x) {
// CHECK: {{.*}}or-combinations.c:[[@LINE+1]]:3: error: vigil: cannot build the automaton of this assertion: an OR block has too many combinations of its members
  TESLA_WITHIN(syscall, previously(call(v(1)) || call(v(2)) || call(v(3)) || call(v(4)) || call(v(5)) || call(v(6)) || call(v(7)) || call(v(8)) || call(v(9)) || call(v(10)) || call(v(11)) || call(v(12)) || call(v(13))));
}
