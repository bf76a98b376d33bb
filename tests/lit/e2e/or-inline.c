// Top-level OR on the inline path (issue 15): an alternative with no
// transition on the site dies there inline, the first alternative to be
// done settles the instance, and the runtime takes both back when it is
// called later in the bound.  Every case runs per-thread and global, and
// lit runs this file again with VIGIL_FAST_PATH=0: the reports must be the
// engine's, word for word.
// Passing (three bounds each: the next bound starts clean):
// RUN: %vigil-cc -O1 %s -o %t
// RUN: %t t asb 2>&1 | FileCheck %s --check-prefix=OK
// RUN: %t t bcsd 2>&1 | FileCheck %s --check-prefix=OK
// RUN: %t t asbcd 2>&1 | FileCheck %s --check-prefix=OK
// RUN: %t g asb 2>&1 | FileCheck %s --check-prefix=OK
// RUN: %t g bcsd 2>&1 | FileCheck %s --check-prefix=OK
// RUN: %t v a1x 2>&1 | FileCheck %s --check-prefix=OK
// RUN: %t v a1x1 2>&1 | FileCheck %s --check-prefix=OK
// RUN: %t v a1x2y 2>&1 | FileCheck %s --check-prefix=OK
// Both died at the site; b afterwards must not change alternative 2's words:
// RUN: env VIGIL_ON_FAILURE=log %t t sb 2>&1 | FileCheck %s --check-prefix=SB
// RUN: env VIGIL_ON_FAILURE=log %t g sb 2>&1 | FileCheck %s --check-prefix=SB
// Died having seen c out of order (wrong-order from ever before its death):
// RUN: env VIGIL_ON_FAILURE=log %t t cbsb 2>&1 | FileCheck %s --check-prefix=CB
// RUN: env VIGIL_ON_FAILURE=log %t g cbsb 2>&1 | FileCheck %s --check-prefix=CB
// One alternative past the site fails after it, the other died:
// RUN: env VIGIL_ON_FAILURE=log %t t as 2>&1 | FileCheck %s --check-prefix=AS
// RUN: env VIGIL_ON_FAILURE=log %t g as 2>&1 | FileCheck %s --check-prefix=AS
// A second tuple after alternative 1 was done for the first (settled
// inline, unsettled by the runtime):
// RUN: env VIGIL_ON_FAILURE=log %t v a1x2 2>&1 | FileCheck %s --check-prefix=TUPLE
// RUN: env VIGIL_ON_FAILURE=log %t v a1x2x 2>&1 | FileCheck %s --check-prefix=TUPLE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tesla.h>

void a(void) {}
void b(void) {}
void c(void) {}
void d(void) {}
void e(int v) { (void)v; }
static const char *script;
void run_t(void);
void run_g(void);
void run_v(void);

// b is both alternatives': alt 1's event after the site, alt 2's before.
void site_t(void) {
  TESLA_WITHIN(run_t, TSEQUENCE(call(a), TESLA_ASSERTION_SITE, call(b)) ||
                          TSEQUENCE(call(b), call(c), TESLA_ASSERTION_SITE, call(d)));
}
void site_g(void) {
  TESLA_GLOBAL(call(run_g), returnfrom(run_g),
               TSEQUENCE(call(a), TESLA_ASSERTION_SITE, call(b)) ||
                   TSEQUENCE(call(b), call(c), TESLA_ASSERTION_SITE, call(d)));
}
// A captured value: a second tuple after an alternative was done.
void site_v(int x) {
  TESLA_WITHIN(run_v, TSEQUENCE(call(a), TESLA_ASSERTION_SITE, call(e(x))) ||
                          TSEQUENCE(call(c), TESLA_ASSERTION_SITE, call(d)));
}

void run_t(void) {
  for (const char *p = script; *p; p++)
    switch (*p) {
    case 'a': a(); break;
    case 'b': b(); break;
    case 'c': c(); break;
    case 'd': d(); break;
    case 's': site_t(); break;
    }
}
void run_g(void) {
  for (const char *p = script; *p; p++)
    switch (*p) {
    case 'a': a(); break;
    case 'b': b(); break;
    case 'c': c(); break;
    case 'd': d(); break;
    case 's': site_g(); break;
    }
}
void run_v(void) {
  for (const char *p = script; *p; p++)
    switch (*p) {
    case 'a': a(); break;
    case 'c': c(); break;
    case 'd': d(); break;
    case '1': site_v(1); break;
    case '2': site_v(2); break;
    case 'x': e(1); break;
    case 'y': e(2); break;
    }
}

int main(int argc, char **argv) {
  script = argv[2];
  for (int i = 0; i < 3; i++) { // later bounds start clean
    if (argv[1][0] == 't') run_t();
    if (argv[1][0] == 'g') run_g();
    if (argv[1][0] == 'v') run_v();
  }
  puts("done");
  return 0;
}
// OK-NOT: vigil
// OK: done
// SB-COUNT-3: alternative 2: TSEQUENCE(call(b), call(c), TESLA_ASSERTION_SITE, call(d))
// SB-NEXT: required event call(b) did not happen before the assertion site (missing-before-site)
// SB-NOT: vigil: assertion failed
// SB: done
// CB: alternative 1: TSEQUENCE(call(a), TESLA_ASSERTION_SITE, call(b))
// CB-NEXT: required event call(a) did not happen before the assertion site (missing-before-site)
// CB: alternative 2: TSEQUENCE(call(b), call(c), TESLA_ASSERTION_SITE, call(d))
// CB-NEXT: call(c) happened, but not in the order the assertion requires (wrong-order)
// CB: done
// AS-COUNT-3: vigil: assertion failed
// AS: alternative 1: TSEQUENCE(call(a), TESLA_ASSERTION_SITE, call(b))
// AS-NEXT: required event call(b) did not happen after the assertion site before the bound ended (missing-after-site)
// AS: alternative 2: TSEQUENCE(call(b), call(c), TESLA_ASSERTION_SITE, call(d))
// AS-NEXT: required event call(b) did not happen before the assertion site (missing-before-site)
// AS-NOT: vigil: assertion failed
// AS: done
// TUPLE: vigil: assertion failed
// TUPLE: alternative 1: TSEQUENCE(call(a), TESLA_ASSERTION_SITE, call(e(x)))
// TUPLE-NEXT: (missing-after-site)
// TUPLE-NEXT: event: call(e(x))
// TUPLE-NEXT: values: x = 2
// TUPLE: alternative 2: TSEQUENCE(call(c), TESLA_ASSERTION_SITE, call(d))
// TUPLE-NEXT: (missing-before-site)
// TUPLE: done
