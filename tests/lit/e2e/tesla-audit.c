// TESLA's audit demo (FreeBSD's open and write paths), in miniature: every
// system call that opens a path must record it for the audit trail after
// the point where the kernel decides to open it, and a write must have
// passed the MAC check on the same vnode.  One dispatcher, sys_dispatch(), is
// the bound of every assertion.
// RUN: %vigil-cc -O1 %s -o %t
// RUN: %t open-audited 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t write-checked 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t both 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ALGORITHM=history %t both 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t open-unaudited 2>&1 | FileCheck %s --check-prefix=UNAUDITED
// RUN: env VIGIL_ON_FAILURE=log %t write-unchecked 2>&1 | FileCheck %s --check-prefix=UNCHECKED
// RUN: env VIGIL_ON_FAILURE=log %t write-other-vnode 2>&1 | FileCheck %s --check-prefix=UNCHECKED
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ALGORITHM=history %t write-other-vnode 2>&1 | FileCheck %s --check-prefix=UNCHECKED
// RUN: env VIGIL_ON_FAILURE=log %t write-denied 2>&1 | FileCheck %s --check-prefix=DENIED --implicit-check-not="assertion failed"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <tesla-macros.h>

#define AT_FDCWD (-100)
enum { SYS_OPEN = 5, SYS_WRITE = 4 };

struct ucred { int uid; };
struct thread { int tid; struct ucred *cred; int audit_enabled; };
struct vnode { const char *tag; int label; };
struct file { struct vnode *vp; struct ucred *cred; };

int sys_dispatch(struct thread *td, int code, const char *path, struct file *fp);

void audit_arg_upath(struct thread *td, int dirfd, const char *upath) {
  (void)td; (void)dirfd; (void)upath;
}
int mac_vnode_check_write(struct ucred *active, struct ucred *file_cred, struct vnode *vp) {
  (void)active; (void)file_cred;
  return vp->label < 0 ? EACCES : 0;
}

static int namei(struct thread *td, int dirfd, const char *path) {
  if (td->audit_enabled)
    audit_arg_upath(td, dirfd, path);
  return 0;
}

int kern_openat(struct thread *td, int fd, const char *path, int flags, int mode) {
  (void)flags; (void)mode;
  TESLA_WITHIN(sys_dispatch, eventually(call(audit_arg_upath(td, ANY(int), ANY(ptr)))));
  fprintf(stderr, "-- opening '%s'\n", path);
  return namei(td, fd, path);
}

static struct vnode scratch = {"scratch", 0};

int vn_write(struct thread *td, struct file *fp, int check_which) {
  struct vnode *vp = fp->vp;
  int error = 0;
  if (check_which == 1)
    error = mac_vnode_check_write(td->cred, fp->cred, vp);
  if (check_which == 2)
    error = mac_vnode_check_write(td->cred, fp->cred, &scratch);
  if (error == 0) {
    TESLA_WITHIN(sys_dispatch, previously(mac_vnode_check_write(ANY(ptr), ANY(ptr), vp) == 0));
    fprintf(stderr, "-- writing to vnode with tag '%s'\n", vp->tag);
  } else {
    fprintf(stderr, "-- write denied\n");
  }
  return error;
}

static int check_which = 1;

int sys_dispatch(struct thread *td, int code, const char *path, struct file *fp) {
  switch (code) {
  case SYS_OPEN: return kern_openat(td, AT_FDCWD, path, 0, 0);
  case SYS_WRITE: return vn_write(td, fp, check_which);
  }
  return ENOSYS;
}

int main(int argc, char *argv[]) {
  struct ucred cred = {1001};
  struct thread td = {1, &cred, 1};
  struct vnode vn = {"ufs", 0}, secret = {"secret", -1};
  struct file f = {&vn, &cred}, fs = {&secret, &cred};
  const char *m = argc > 1 ? argv[1] : "both";
  if (!strcmp(m, "open-audited") || !strcmp(m, "both"))
    sys_dispatch(&td, SYS_OPEN, "/etc/passwd", NULL);
  if (!strcmp(m, "write-checked") || !strcmp(m, "both"))
    sys_dispatch(&td, SYS_WRITE, NULL, &f);
  if (!strcmp(m, "open-unaudited")) {
    td.audit_enabled = 0;
    sys_dispatch(&td, SYS_OPEN, "/etc/passwd", NULL);
    fprintf(stderr, "returned\n");
  }
  if (!strcmp(m, "write-unchecked")) {
    check_which = 0;
    sys_dispatch(&td, SYS_WRITE, NULL, &f);
  }
  if (!strcmp(m, "write-other-vnode")) {
    check_which = 2;
    sys_dispatch(&td, SYS_WRITE, NULL, &f);
  }
  if (!strcmp(m, "write-denied"))
    sys_dispatch(&td, SYS_WRITE, NULL, &fs);
  fprintf(stderr, "done\n");
  return 0;
}
// OK: done
//
// UNAUDITED: -- opening '/etc/passwd'
// UNAUDITED-NEXT: vigil: assertion failed at {{.*}}tesla-audit.c:{{[0-9]+}}:3
// UNAUDITED: reason: required event call(audit_arg_upath(td, ANY(int), ANY(ptr))) did not happen after the assertion site before the bound ended (missing-after-site)
// UNAUDITED: returned
// UNAUDITED: done
//
// UNCHECKED: vigil: assertion failed at {{.*}}tesla-audit.c:{{[0-9]+}}:5
// UNCHECKED: reason: required event mac_vnode_check_write(ANY(ptr), ANY(ptr), vp) == 0 did not happen before the assertion site (missing-before-site)
// UNCHECKED: -- writing to vnode with tag 'ufs'
// UNCHECKED: done
//
// DENIED: -- write denied
// DENIED: done
