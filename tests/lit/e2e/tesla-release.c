// Port of TESLA's Integration/release.c: after the operation, the object
// it used must be released before the system call returns.  Releasing it
// too early (before the operation) is reported at the operation.
// RUN: %vigil-cc -O1 %s -o %t
// RUN: %t ok 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ALGORITHM=history %t ok 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t twice 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t early 2>&1 | FileCheck %s --check-prefix=EARLY
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ALGORITHM=history %t early 2>&1 | FileCheck %s --check-prefix=EARLY
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

static const char *mode = "ok";

int get_object(int index, struct object **o);
int example_syscall(struct credential *cred, int index, int op);

static void hold(struct object *o) { o->refcount += 1; }
static void release(struct object *o) { o->refcount -= 1; }

int perform_operation(int op, struct object *o) {
  (void)op;
  fprintf(stderr, "operation\n");
  TESLA_WITHIN(example_syscall, eventually(call(release(o))));
  return 0;
}

int example_syscall(struct credential *cred, int index, int op) {
  struct object *o;
  (void)cred;
  int error = get_object(index, &o);
  if (error != 0)
    return error;
  if (!strcmp(mode, "early"))
    release(o);
  perform_operation(op, o);
  if (!strcmp(mode, "twice"))
    perform_operation(op, o);
  if (strcmp(mode, "early"))
    release(o);
  return 0;
}

int get_object(int index, struct object **o) {
  static struct object objects[4];
  if (index < 0 || index >= 4)
    return EINVAL;
  struct object *obj = objects + index;
  hold(obj);
  *o = obj;
  return 0;
}

int main(int argc, char *argv[]) {
  struct credential cred = {0};
  if (argc > 1)
    mode = argv[1];
  example_syscall(&cred, 0, 0);
  fprintf(stderr, "done\n");
  return 0;
}
// OK: operation
// OK: done
//
// EARLY: operation
// EARLY-NEXT: vigil: assertion failed at {{.*}}tesla-release.c:{{[0-9]+}}:3
// EARLY: reason: call(release(o)) is expected after the assertion site but happened before it (event-before-site)
// EARLY-NOT: assertion failed
// EARLY: done
