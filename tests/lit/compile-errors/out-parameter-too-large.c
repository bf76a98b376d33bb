// An out-parameter wider than 8 bytes.
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

void t(struct big b) {
// CHECK: {{.*}}out-parameter-too-large.c:[[@LINE+1]]:45: error: vigil: out-parameter '&b': 'b' has type 'struct big'; only integer, pointer and enum values of at most 8 bytes can be read through the pointer
  TESLA_WITHIN(syscall, previously(get_big(&b) == 0));
}
