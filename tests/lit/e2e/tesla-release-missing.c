// Port of TESLA's Integration/release-missing.c: the system call forgets to
// release the object after the operation, and is reported when it returns.
// Releasing another object does not count.
// RUN: %vigil-cc -O1 %s -o %t
// RUN: %t fixed 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t missing 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ALGORITHM=history %t missing 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: env VIGIL_ON_FAILURE=log %t other 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ALGORITHM=history %t other 2>&1 | FileCheck %s --check-prefix=MISSING
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

static const char *mode = "missing";

int get_object(int index, struct object **o);
int example_syscall(struct credential *cred, int index, int op);

static void hold(struct object *o) { o->refcount += 1; }
static void release(struct object *o) { o->refcount -= 1; }

int perform_operation(int op, struct object *o) {
  (void)op;
  TESLA_WITHIN(example_syscall, eventually(call(release(o))));
  return 0;
}

int example_syscall(struct credential *cred, int index, int op) {
  struct object *o, *other;
  (void)cred;
  int error = get_object(index, &o);
  if (error != 0)
    return error;
  if (get_object(index + 1, &other) != 0)
    return EINVAL;
  perform_operation(op, o);
  release(other);
  if (!strcmp(mode, "fixed"))
    release(o);
  if (!strcmp(mode, "other"))
    release(other); /* the wrong object, twice */
  fprintf(stderr, "returning\n");
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
// OK: returning
// OK: done
//
// MISSING: returning
// MISSING-NEXT: vigil: assertion failed at {{.*}}tesla-release-missing.c:{{[0-9]+}}:3
// MISSING: reason: required event call(release(o)) did not happen after the assertion site before the bound ended (missing-after-site)
// MISSING: event: call(release(o))
// MISSING-NOT: assertion failed
// MISSING: done
