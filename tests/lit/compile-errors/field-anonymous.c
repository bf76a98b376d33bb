// A field of an anonymous struct.
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
// CHECK: {{.*}}field-anonymous.c:[[@LINE+1]]:42: error: vigil: field 'a' belongs to an anonymous struct or union; name it (or typedef it) to observe stores to its fields
  TESLA_WITHIN(syscall, previously(anon->a = 1));
}
