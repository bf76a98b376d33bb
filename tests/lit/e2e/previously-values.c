// A non-static previously(): the check must have been made on the same
// arguments and have returned 0.  Both verification algorithms.
// RUN: %vigil-cc -O1 %s -o %t
// RUN: %t ok 2>&1 | FileCheck %s --check-prefix=OK
// RUN: env VIGIL_ALGORITHM=history %t ok 2>&1 | FileCheck %s --check-prefix=OK
// RUN: env VIGIL_ON_FAILURE=log %t other-file 2>&1 | FileCheck %s --check-prefix=OTHER
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ALGORITHM=history %t other-file 2>&1 | FileCheck %s --check-prefix=OTHER
// RUN: env VIGIL_ON_FAILURE=log %t denied 2>&1 | FileCheck %s --check-prefix=DENIED
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ALGORITHM=history %t denied 2>&1 | FileCheck %s --check-prefix=DENIED
// Non-precise mode (hashes of the values only) reaches the same verdicts.
// RUN: env VIGIL_PRECISE=0 %t ok 2>&1 | FileCheck %s --check-prefix=OK
// RUN: env VIGIL_PRECISE=0 VIGIL_ALGORITHM=history %t ok 2>&1 | FileCheck %s --check-prefix=OK
// RUN: env VIGIL_PRECISE=0 VIGIL_ON_FAILURE=log %t other-file 2>&1 | FileCheck %s --check-prefix=OTHER
// RUN: env VIGIL_PRECISE=0 VIGIL_ON_FAILURE=log VIGIL_ALGORITHM=history %t other-file 2>&1 | FileCheck %s --check-prefix=OTHER
// RUN: env VIGIL_PRECISE=maybe %t ok 2>&1 | FileCheck %s --check-prefix=BADPRECISE
#include <stdio.h>
#include <string.h>
#include <tesla.h>

struct cred { int uid; };
struct file { int mode; };

int mac_check(struct cred *c, struct file *f) { return c->uid == 0 || f->mode == 0 ? 0 : -1; }

int sys_open(struct cred *c, struct file *f, struct file *checked);
int vfs_open(struct cred *c, struct file *f) {
  TESLA_WITHIN(sys_open, previously(mac_check(c, f) == 0));
  return 0;
}

int sys_open(struct cred *c, struct file *f, struct file *checked) {
  struct file other = {0};
  mac_check(c, &other); /* noise: another file */
  if (mac_check(c, checked) != 0)
    return -1;
  return vfs_open(c, f);
}

int main(int argc, char **argv) {
  struct cred user = {1000};
  struct file pub = {0}, secret = {1}, priv = {0};
  if (!strcmp(argv[1], "ok"))
    sys_open(&user, &pub, &pub);
  else if (!strcmp(argv[1], "other-file"))
    sys_open(&user, &priv, &pub); /* checked pub, opened priv */
  else {
    mac_check(&user, &secret);    /* returns -1 */
    vfs_open(&user, &secret);     /* outside sys_open: ignored */
    struct cred root = {0};
    sys_open(&user, &secret, &pub); /* opened without a check on secret */
    (void)root;
  }
  puts("done");
  return 0;
}
// OK-NOT: vigil
// OK: done
// BADPRECISE: vigil: ignoring VIGIL_PRECISE=maybe (expected 0 or 1)
// BADPRECISE: done
// OTHER: vigil: assertion failed at {{.*}}previously-values.c:{{[0-9]+}}:3
// OTHER: reason: required event mac_check(c, f) == 0 did not happen before the assertion site (missing-before-site)
// OTHER: values: c = 0x{{[0-9a-f]+}}, f = 0x{{[0-9a-f]+}}, return value = 0
// OTHER: done
// DENIED: reason: {{.*}}(missing-before-site)
// DENIED: done
