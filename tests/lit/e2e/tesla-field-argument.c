// Port of TESLA's Parsing/field-argument.c at run time: captured
// expressions that read struct fields, through a pointer (op->field) and
// of a local struct (o.field), as argument values.  Both are evaluated when
// the site is reached.
// RUN: %vigil-cc -O1 %s -o %t
// RUN: %t ok 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ALGORITHM=history %t ok 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t swapped 2>&1 | FileCheck %s --check-prefix=ORDER
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ALGORITHM=history %t swapped 2>&1 | FileCheck %s --check-prefix=ORDER
// RUN: env VIGIL_ON_FAILURE=log %t changed 2>&1 | FileCheck %s --check-prefix=MISSING
#include <stdio.h>
#include <string.h>
#include <tesla-macros.h>

struct object {
  int field;
};

int do_something(int x) { return x < 0; }
int context(const char *mode, struct object *op);

void foo(struct object *op, struct object o) {
  TESLA_WITHIN(context, previously(do_something(op->field) == 0,
                                   do_something(o.field) == 0));
}

int context(const char *mode, struct object *op) {
  struct object o = {op->field + 1};
  if (!strcmp(mode, "ok")) {
    do_something(op->field);
    do_something(o.field);
  }
  if (!strcmp(mode, "swapped")) {
    do_something(o.field);
    do_something(op->field);
  }
  if (!strcmp(mode, "changed")) {
    do_something(op->field);
    do_something(o.field);
    o.field = 99; /* the site reads the new value */
  }
  fprintf(stderr, "site\n");
  foo(op, o);
  return 0;
}

int main(int argc, char **argv) {
  struct object obj = {10};
  context(argc > 1 ? argv[1] : "ok", &obj);
  fprintf(stderr, "done\n");
  return 0;
}
// OK: site
// OK: done
//
// ORDER: site
// ORDER-NEXT: vigil: assertion failed at {{.*}}tesla-field-argument.c:{{[0-9]+}}:3
// ORDER: reason: do_something(o.field) == 0 happened, but not in the order the assertion requires (wrong-order)
// ORDER: done
// MISSING: site
// MISSING-NEXT: vigil: assertion failed at {{.*}}tesla-field-argument.c:{{[0-9]+}}:3
// MISSING: reason: required event do_something(o.field) == 0 did not happen before the assertion site (missing-before-site)
// MISSING: done
