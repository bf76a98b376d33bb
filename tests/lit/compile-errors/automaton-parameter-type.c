// An automaton parameter of struct type.
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

// CHECK: {{.*}}automaton-parameter-type.c:[[@LINE+1]]:26: error: vigil: automaton parameter 'v' has type 'struct s'; only integer, pointer, enum and bool parameters of at most 64 bits are allowed
automaton(life, struct s v) {
  call(g);
  tesla_done;
}
