// Port of TESLA's Integration/hold.c: get_object() takes a reference with
// hold(); the operation asserts that the object it works on was held, once
// on hold()'s entry and once on its return.  Two objects are fetched: only
// the hold of the object the operation uses counts.
// RUN: %vigil-cc -O1 %s -o %t
// RUN: %t 0 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ALGORITHM=history %t 0 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t 2 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t 0 skip-second 2>&1 | FileCheck %s --check-prefix=SKIP
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ALGORITHM=history %t 0 skip-second 2>&1 | FileCheck %s --check-prefix=SKIP
// RUN: env VIGIL_ON_FAILURE=log %t 3 2>&1 | FileCheck %s --check-prefix=EINVAL --implicit-check-not="assertion failed"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tesla-macros.h>

struct object {
  int refcount;
};
struct credential {
  int uid;
};

static int skip_hold_of = -1;

int get_object(int index, struct object **o);
int example_syscall(struct credential *cred, int index, int op);

static void hold(struct object *o) { o->refcount += 1; }

int perform_operation(int op, struct object *o) {
  (void)op;
  fprintf(stderr, "operation\n");
  TESLA_WITHIN(example_syscall, previously(call(hold(o))));
  TESLA_WITHIN(example_syscall, previously(returnfrom(hold(o))));
  return 0;
}

int example_syscall(struct credential *cred, int index, int op) {
  struct object *o;
  (void)cred;
  int error = get_object(index, &o);
  if (error != 0)
    return error;
  error = get_object(index + 1, &o);
  if (error != 0)
    return error;
  return perform_operation(op, o);
}

int get_object(int index, struct object **o) {
  static struct object objects[4];
  if (index < 0 || index >= 4)
    return EINVAL;
  struct object *obj = objects + index;
  if (index != skip_hold_of)
    hold(obj);
  *o = obj;
  return 0;
}

int main(int argc, char *argv[]) {
  struct credential cred = {0};
  int index = argc > 1 ? atoi(argv[1]) : 0;
  if (argc > 2 && !strcmp(argv[2], "skip-second"))
    skip_hold_of = index + 1;
  int r = example_syscall(&cred, index, 0);
  fprintf(stderr, "returned %d\n", r);
  fprintf(stderr, "done\n");
  return 0;
}
// OK: operation
// OK: returned 0
// OK: done
//
// The first object was held, the one operated on was not: both fail.
// SKIP: operation
// SKIP-NEXT: vigil: assertion failed at {{.*}}tesla-hold.c:[[#LINE1:]]:3
// SKIP: reason: required event call(hold(o)) did not happen before the assertion site (missing-before-site)
// SKIP: vigil: assertion failed at {{.*}}tesla-hold.c:[[#LINE1+1]]:3
// SKIP: reason: required event returnfrom(hold(o)) did not happen before the assertion site (missing-before-site)
// SKIP-NOT: assertion failed
// SKIP: done
//
// Index 3: the second object does not exist, no operation, nothing checked.
// EINVAL: returned 22
// EINVAL: done
