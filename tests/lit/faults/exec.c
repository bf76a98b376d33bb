// exec inside a bound: the new program starts with a fresh runtime and
// runs; the old image's open bound is gone with it, so nothing is reported
// for it, and its at-exit summaries (VIGIL_STATS, count mode) are not
// printed: exec skips atexit (docs/faults.md, "exec").
// RUN: %vigil-cc -O1 %s -o %t
// RUN: env VIGIL_STATS=1 %t first %t 2>&1 | FileCheck %s
// A violation before the exec is reported when it happens (log mode), and
// only the new image's statistics are printed.
// RUN: env VIGIL_ON_FAILURE=log VIGIL_STATS=1 VIGIL_BACKTRACE=0 %t fail-first %t 2>&1 | FileCheck %s --check-prefix=FAIL
// In count mode the old image's count is lost with its atexit handlers.
// RUN: env VIGIL_ON_FAILURE=count %t fail-first %t 2>&1 | FileCheck %s --check-prefix=COUNT
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <tesla.h>

void authorise(void) {}
int request(int auth, int site, const char *self, const char *next);
void handle(void) { TESLA_WITHIN(request, previously(call(authorise))); }

int request(int auth, int site, const char *self, const char *next) {
  if (auth)
    authorise();
  if (next) {
    if (site)
      handle(); /* fail-first: a violation before the exec */
    fprintf(stderr, "exec in pid %d\n", (int)getpid());
    fflush(stderr);
    execl(self, self, next, (char *)0);
    perror("execl");
    return 1;
  }
  handle();
  return 0;
}

int main(int argc, char **argv) {
  (void)argc;
  const char *m = argv[1];
  if (!strcmp(m, "first"))
    request(0, 0, argv[2], "second"); /* no authorise, no site: exec in the bound */
  if (!strcmp(m, "fail-first"))
    request(0, 1, argv[2], "second");
  if (!strcmp(m, "second")) {
    request(1, 1, argv[0], 0);
    fprintf(stderr, "second program %d: done\n", (int)getpid());
  }
  return 0;
}
// CHECK-NOT: vigil
// CHECK: exec in pid [[PID:[0-9]+]]
// CHECK-NOT: vigil
// CHECK: second program [[PID]]: done
// CHECK-NEXT: vigil: statistics (1 assertion
// CHECK-NEXT: assertion
// CHECK-NEXT: exec.c:{{[0-9]+}}:21{{ +}}1{{ +}}{{[0-9]+}}{{ +}}1{{ +}}0{{ +}}0
// CHECK-NOT: exec.c
// FAIL: vigil: assertion failed at {{.*}}exec.c:{{[0-9]+}}:21
// FAIL: exec in pid
// FAIL-NOT: assertion failed
// FAIL: second program {{[0-9]+}}: done
// FAIL-NEXT: vigil: statistics (1 assertion
// FAIL-NEXT: assertion
// FAIL-NEXT: exec.c:{{[0-9]+}}:21{{ +}}1{{ +}}{{[0-9]+}}{{ +}}1{{ +}}0{{ +}}0
// COUNT-NOT: vigil
// COUNT: exec in pid
// COUNT-NOT: vigil
// COUNT: second program {{[0-9]+}}: done
// COUNT-NEXT: vigil: 0 violations counted
// COUNT-NOT: vigil
