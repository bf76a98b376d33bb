// ++ on a pointer field.
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
// CHECK: {{.*}}field-pointer-increment.c:[[@LINE+1]]:36: error: vigil: 'o->p++': only integer fields can be matched with '+=', '-=', '++' or '--'
  TESLA_WITHIN(syscall, previously(o->p++));
}
