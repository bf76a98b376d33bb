// TESLA's Automata/inclusive-or.c at run time: `a(x) == 0 || b(y) == 0` is
// an inclusive OR (a, b, a then b, b then a), each member at most once in
// strict mode, and at least one of them.
// Trace letters: a / b call a() / b() with the value the assertion
// captures, A / B with another value (ignored by the captured form);
// S reaches the site.
// RUN: %vigil-cc -O1 %s -o %t
// RUN: %t g aS 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t g bS 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t g abS 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t g baS 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ALGORITHM=history %t g baS 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t g ABS 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ALGORITHM=history %t g ABS 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: env VIGIL_ON_FAILURE=log %t g S 2>&1 | FileCheck %s --check-prefix=NONE
//
// Strict, with constant arguments (static): exactly one a and/or one b.
// RUN: %t s abS 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t s bS 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t s aaS 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: env VIGIL_ON_FAILURE=log %t s abaS 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: env VIGIL_ON_FAILURE=log %t s S 2>&1 | FileCheck %s --check-prefix=NONE
#include <stdio.h>
#include <string.h>
#include <tesla-macros.h>

int a(int v) { return v < 0; }
int b(int v) { return v < 0; }

int ab_g(int x, int y, const char *trace);
int ab_s(const char *trace);

void site_g(int x, int y) {
  TESLA_PERTHREAD(call(ab_g), returnfrom(ab_g), previously(a(x) == 0 || b(y) == 0));
}
void site_s(void) {
  TESLA_PERTHREAD(call(ab_s), returnfrom(ab_s), strict(previously(a(1) == 0 || b(2) == 0)));
}

int ab_g(int x, int y, const char *trace) {
  for (const char *p = trace; *p; p++) {
    switch (*p) {
    case 'a': a(x); break;
    case 'b': b(y); break;
    case 'A': a(x + 100); break;
    case 'B': b(y + 100); break;
    case 'S': fprintf(stderr, "site\n"); site_g(x, y); break;
    }
  }
  return 0;
}

int ab_s(const char *trace) {
  for (const char *p = trace; *p; p++) {
    switch (*p) {
    case 'a': a(1); break;
    case 'b': b(2); break;
    case 'S': fprintf(stderr, "site\n"); site_s(); break;
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 3)
    return 2;
  if (!strcmp(argv[1], "g")) ab_g(7, 8, argv[2]);
  if (!strcmp(argv[1], "s")) ab_s(argv[2]);
  fprintf(stderr, "done\n");
  return 0;
}
// OK: done
//
// NONE: site
// NONE-NEXT: vigil: assertion failed at {{.*}}tesla-inclusive-or.c:{{[0-9]+}}:3
// NONE: (missing-before-site)
// NONE: done
//
// TWICE: vigil: assertion failed at {{.*}}tesla-inclusive-or.c:{{[0-9]+}}:3
// TWICE: reason: strict mode: a(1) == 0 is not a transition {{.*}}(unexpected-event)
// TWICE: site
// TWICE: done
