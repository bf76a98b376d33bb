// TESLA's smoketest demo (demos/smoketest/example.c), restated: one system
// call, eight assertions at the operation: plain and value-matching
// previously(), call and return of hold(), eventually(release), a field
// increment, a top-level OR of a past check and a future audit record, and
// a global TSEQUENCE with an OR block, an optional call and a return after
// the site.
// RUN: %vigil-cc -O1 %s -o %t
// RUN: %t ok 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ALGORITHM=history %t ok 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t no-void-helper 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t no-check 2>&1 | FileCheck %s --check-prefix=NOCHECK
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ALGORITHM=history %t no-check 2>&1 | FileCheck %s --check-prefix=NOCHECK
// RUN: env VIGIL_ON_FAILURE=log %t no-release 2>&1 | FileCheck %s --check-prefix=NORELEASE
// RUN: env VIGIL_ON_FAILURE=log %t no-check-no-audit 2>&1 | FileCheck %s --check-prefix=NEITHER
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
void hold(struct object *o);
void release(struct object *o);
int security_check(struct credential *subject, struct object *object, int op);
int log_audit_record(struct object *object, int op);
int example_syscall(struct credential *cred, int index, int op);
int some_helper(int op);
void void_helper(struct object *object);
void never_actually_called(void);

int perform_operation(int op, struct object *o) {
  fprintf(stderr, "operation\n");
  // NORELEASE: returning
  // NOCHECK: operation
  // NOCHECK-NEXT: vigil: assertion failed at {{.*}}tesla-smoketest.c:[[@LINE+1]]:3
  TESLA_WITHIN(example_syscall, previously(security_check(ANY(ptr), o, op) == 0));
  // NOCHECK: (missing-before-site)
  // NOCHECK: vigil: assertion failed at {{.*}}tesla-smoketest.c:[[@LINE+1]]:3
  TESLA_WITHIN(example_syscall, previously(call(security_check)));
  // NOCHECK: (missing-before-site)
  TESLA_WITHIN(example_syscall, previously(call(hold(o))));
  TESLA_WITHIN(example_syscall, previously(returnfrom(hold(o))));
  // NORELEASE-DAG: vigil: assertion failed at {{.*}}tesla-smoketest.c:[[@LINE+1]]:3
  TESLA_WITHIN(example_syscall, eventually(call(release(o))));
  TESLA_WITHIN(example_syscall, previously(o->refcount += 1));
  // NEITHER: vigil: assertion failed at {{.*}}tesla-smoketest.c:[[@LINE+1]]:3
  TESLA_WITHIN(example_syscall,
               previously(security_check(ANY(ptr), o, op) == 0) ||
               eventually(log_audit_record(o, op) == 0));
  // NEITHER: alternative 1:
  // NEITHER: (missing-before-site)
  // NEITHER: alternative 2:
  // NEITHER: (missing-after-site)
  // NOCHECK: vigil: assertion failed at {{.*}}tesla-smoketest.c:[[@LINE+2]]:3
  // NORELEASE-DAG: vigil: assertion failed at {{.*}}tesla-smoketest.c:[[@LINE+1]]:3
  TESLA_GLOBAL(call(example_syscall), returnfrom(example_syscall),
               TSEQUENCE(get_object(ANY(int), ANY(ptr)) == 0,
                         security_check(ANY(ptr), o, op) == 0,
                         some_helper(op) == 0 || call(never_actually_called),
                         optional(call(void_helper(o))),
                         TESLA_ASSERTION_SITE,
                         returnfrom(release(o))));
  // NOCHECK: (wrong-order)
  // Both reports come when the system call returns, in either order.
  // NORELEASE-DAG: event: call(release(o))
  // NORELEASE-DAG: event: returnfrom(release(o))
  // NORELEASE-DAG: (missing-after-site)
  // NORELEASE-DAG: (missing-after-site)
  return 0;
}

int example_syscall(struct credential *cred, int index, int op) {
  struct object *o;
  int error = get_object(index, &o);
  if (error != 0)
    return error;
  if (strcmp(mode, "no-check") && strcmp(mode, "no-check-no-audit"))
    if ((error = security_check(cred, o, op)))
      return error;
  some_helper(op);
  if (strcmp(mode, "no-void-helper"))
    void_helper(o);
  perform_operation(op, o);
  if (strcmp(mode, "no-check-no-audit"))
    log_audit_record(o, op);
  if (strcmp(mode, "no-release"))
    release(o);
  fprintf(stderr, "returning\n");
  return 0;
}

static struct object objects[4];

int security_check(struct credential *subject, struct object *object, int op) {
  (void)subject; (void)object; (void)op;
  return 0;
}
int log_audit_record(struct object *object, int op) { (void)object; (void)op; return 0; }
void void_helper(struct object *object) { (void)object; }
int some_helper(int op) { return op; }
void never_actually_called(void) {}

int get_object(int index, struct object **o) {
  if (index < 0 || index >= 4)
    return EINVAL;
  struct object *obj = objects + index;
  hold(obj);
  *o = obj;
  return 0;
}
void hold(struct object *o) { o->refcount += 1; }
void release(struct object *o) { o->refcount -= 1; }

int main(int argc, char *argv[]) {
  struct credential cred = {0};
  if (argc > 1)
    mode = argv[1];
  fprintf(stderr, "calling example_syscall\n");
  int r = example_syscall(&cred, 0, 0);
  fprintf(stderr, "returned %d\n", r);
  fprintf(stderr, "done\n");
  return 0;
}
// OK: operation
// OK: returning
// OK: returned 0
// OK: done
//
// The OR of a past check and a future audit record holds (the audit came).
// NOCHECK-NOT: assertion failed
// NOCHECK: done
//
// NORELEASE-NOT: assertion failed
// NORELEASE: done
//
// NEITHER-NOT: assertion failed
// NEITHER: done
