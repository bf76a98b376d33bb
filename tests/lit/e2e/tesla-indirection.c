// Out-parameters (TESLA's Integration/indirection.c): `&o` in an argument
// means "the pointer argument pointed to a value equal to o when the
// function returned".  The program stores the object in its own variable
// `p`, and the site's `o` is another variable (a parameter) with the same
// value: comparing the address of o instead (vigil before ABI v3) reports
// this correct program.  Also a 4-byte out-parameter (`&n`, an int).
// RUN: %vigil-cc -O1 %s -o %t
// RUN: %t ok 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ALGORITHM=history %t ok 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t overwritten 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t count 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ALGORITHM=history %t count 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t other 2>&1 | FileCheck %s --check-prefix=OBJ
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ALGORITHM=history %t other 2>&1 | FileCheck %s --check-prefix=OBJ
// RUN: env VIGIL_ON_FAILURE=log %t failed 2>&1 | FileCheck %s --check-prefix=OBJ
// RUN: env VIGIL_ON_FAILURE=log %t changed-later 2>&1 | FileCheck %s --check-prefix=OBJ
// RUN: env VIGIL_ON_FAILURE=log %t null 2>&1 | FileCheck %s --check-prefix=OBJ
// RUN: %t cond-ok 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ALGORITHM=history %t cond-ok 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t cond-twice 2>&1 | FileCheck %s --check-prefix=COND
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ALGORITHM=history %t cond-twice 2>&1 | FileCheck %s --check-prefix=COND
// RUN: env VIGIL_ON_FAILURE=log %t wrong-count 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ALGORITHM=history %t wrong-count 2>&1 | FileCheck %s --check-prefix=COUNT
#include <stdio.h>
#include <string.h>
#include <tesla-macros.h>

struct object {
  int id;
};

int main(int argc, char *argv[]);
int get_object(int index, struct object **obj_out);
int get_count(int *out);

void foo(struct object *o) {
  TESLA_WITHIN(main, previously(get_object(ANY(int), &o) == 0));
}

/* Conditional: every use needs its own fetch of the object. */
void foo_c(struct object *o) {
  TESLA_WITHIN(main, conditional(previously(get_object(ANY(int), &o) == 0)));
}

void report_count(int n) {
  TESLA_WITHIN(main, previously(get_count(&n) == 0));
}

int main(int argc, char *argv[]) {
  static struct object spare;
  struct object *p = NULL;
  const char *m = argc > 1 ? argv[1] : "ok";
  if (!strcmp(m, "ok")) {
    get_object(1, &p);
    foo(p);
  } else if (!strcmp(m, "overwritten")) {
    get_object(1, &p); /* returned object 1 ... */
    struct object *first = p;
    get_object(2, &p); /* ... then object 2 in the same variable */
    foo(first);
  } else if (!strcmp(m, "other")) {
    get_object(1, &p);
    foo(&spare);
  } else if (!strcmp(m, "failed")) {
    p = &spare;
    get_object(9, &p); /* out of range: returns -1, p unchanged */
    foo(p);
  } else if (!strcmp(m, "changed-later")) {
    get_object(1, &p);
    p = &spare;
    foo(p);
  } else if (!strcmp(m, "null")) {
    get_object(1, NULL); /* a null out-pointer never matches */
    get_object(0, &p);
    foo(p + 1);
  } else if (!strcmp(m, "cond-ok")) {
    get_object(1, &p);
    foo_c(p);
    get_object(1, &p);
    foo_c(p);
  } else if (!strcmp(m, "cond-twice")) {
    get_object(1, &p);
    foo_c(p);
    fprintf(stderr, "second use\n");
    foo_c(p);
  } else if (!strcmp(m, "count")) {
    int n = 0;
    get_count(&n);
    report_count(n);
  } else if (!strcmp(m, "wrong-count")) {
    int n = 0;
    get_count(&n);
    report_count(n + 1);
  }
  fprintf(stderr, "done\n");
  return 0;
}

int get_object(int index, struct object **obj_out) {
  static struct object objects[4];
  if (index < 0 || index >= 4)
    return -1;
  if (obj_out)
    *obj_out = objects + index;
  return 0;
}

int get_count(int *out) {
  *out = 42;
  return 0;
}
// OK: done
//
// OBJ: vigil: assertion failed at {{.*}}tesla-indirection.c:{{[0-9]+}}:3
// OBJ: reason: required event get_object(ANY(int), &o) == 0 did not happen before the assertion site (missing-before-site)
// OBJ-NOT: assertion failed
// OBJ: done
//
// COND: second use
// COND-NEXT: vigil: assertion failed at {{.*}}tesla-indirection.c:{{[0-9]+}}:3
// COND: (missing-before-site)
// COND-NOT: assertion failed
// COND: done
//
// COUNT: vigil: assertion failed at {{.*}}tesla-indirection.c:{{[0-9]+}}:3
// COUNT: reason: required event get_count(&n) == 0 did not happen before the assertion site (missing-before-site)
// COUNT: done
