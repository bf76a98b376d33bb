// The site inside a nested sequence.
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
// CHECK: {{.*}}site-in-nested-sequence.c:[[@LINE+1]]:63: error: vigil: TESLA_ASSERTION_SITE must be in the top-level sequence, not in a nested sequence
  TESLA_WITHIN(syscall, TSEQUENCE(call(f), TSEQUENCE(call(g), TESLA_ASSERTION_SITE)));
}
