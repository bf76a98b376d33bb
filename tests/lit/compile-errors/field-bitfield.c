// A store to a bit-field.
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

void t(struct object *o) {
// CHECK: {{.*}}field-bitfield.c:[[@LINE+1]]:39: error: vigil: field 'bf' is a bit-field; stores to bit-fields cannot be observed
  TESLA_WITHIN(syscall, previously(o->bf = 1));
}
