// Port of TESLA's Integration/hold-missing.c: get_object() forgets to
// hold() the objects it returns, so both assertions about the operated-on
// object fail at the operation.  With the hold restored (`fixed`) they hold.
// RUN: %vigil-cc -O1 %s -o %t
// RUN: %t fixed 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ALGORITHM=history %t 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: rm -f %t.jsonl
// RUN: env VIGIL_ON_FAILURE=log VIGIL_REPORT=%t.jsonl %t > /dev/null 2>&1
// RUN: FileCheck %s --check-prefix=JSON < %t.jsonl
// RUN: rm -f %t.jsonl
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <tesla-macros.h>

struct object {
  int refcount;
};
struct credential {
  int uid;
};

static int fixed;

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
  if (fixed)
    hold(obj); /* the bug: no hold(obj) */
  *o = obj;
  return 0;
}

int main(int argc, char *argv[]) {
  struct credential cred = {0};
  fixed = argc > 1 && !strcmp(argv[1], "fixed");
  example_syscall(&cred, 0, 0);
  fprintf(stderr, "done\n");
  return 0;
}
// OK: operation
// OK: done
//
// MISSING: operation
// MISSING-NEXT: vigil: assertion failed at {{.*}}tesla-hold-missing.c:{{[0-9]+}}:3
// MISSING: reason: required event call(hold(o)) did not happen before the assertion site (missing-before-site)
// MISSING: vigil: assertion failed at {{.*}}tesla-hold-missing.c:{{[0-9]+}}:3
// MISSING: reason: required event returnfrom(hold(o)) did not happen before the assertion site (missing-before-site)
// MISSING-NOT: assertion failed
// MISSING: done
//
// JSON: "reason":"missing-before-site"{{.*}}"event":"call(hold(o))"
// JSON: "reason":"missing-before-site"{{.*}}"event":"returnfrom(hold(o))"
