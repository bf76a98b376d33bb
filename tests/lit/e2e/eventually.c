// eventually(): after the site, the release must come before the bound ends.
// RUN: %vigil-cc -O1 %s -o %t
// RUN: %t ok 2>&1 | FileCheck %s --check-prefix=OK
// RUN: env VIGIL_ALGORITHM=history %t ok 2>&1 | FileCheck %s --check-prefix=OK
// RUN: env VIGIL_ON_FAILURE=log %t leak 2>&1 | FileCheck %s --check-prefix=LEAK
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ALGORITHM=history %t leak 2>&1 | FileCheck %s --check-prefix=LEAK
// RUN: env VIGIL_ON_FAILURE=log %t early 2>&1 | FileCheck %s --check-prefix=EARLY
#include <stdio.h>
#include <string.h>
#include <tesla.h>

struct file { int refs; };
void file_release(struct file *f) { f->refs--; }
int do_syscall(struct file *f, int mode);

void file_get(struct file *f) {
  f->refs++;
  TESLA_WITHIN(do_syscall, eventually(call(file_release(f))));
}

int do_syscall(struct file *f, int mode) {
  struct file other = {1};
  if (mode == 2)
    file_release(f);      /* too early */
  file_get(f);
  file_release(&other);   /* another file: does not count */
  if (mode != 1)
    file_release(f);
  return 0;
}

int main(int argc, char **argv) {
  struct file f = {1};
  do_syscall(&f, !strcmp(argv[1], "ok") ? 0 : !strcmp(argv[1], "leak") ? 1 : 2);
  puts("done");
  return 0;
}
// OK-NOT: vigil
// OK: done
// LEAK: reason: required event call(file_release(f)) did not happen after the assertion site before the bound ended (missing-after-site)
// LEAK: done
// EARLY: reason: call(file_release(f)) is expected after the assertion site but happened before it (event-before-site)
// EARLY: done
