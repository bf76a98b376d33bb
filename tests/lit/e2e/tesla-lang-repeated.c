// One event written twice: TSEQUENCE(call(foo), TESLA_ASSERTION_SITE,
// call(foo)) is one symbol at two places of the pattern (foo before the site
// and foo again after it), in the three modes.  Each mode has its own bound
// (g, c, s), so the assertions never see each other's events.  A trace is
// a string: 'f' calls foo(), 'S' reaches the site.
// RUN: %vigil-cc -O1 %s -o %t
//
// Guideline.
// RUN: %t g fSf 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t g ffSf 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t g fSff 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t g fSSf 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t g fSfS 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t g ff 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t g Sf 2>&1 | FileCheck %s --check-prefix=G-BEFORE
// RUN: env VIGIL_ON_FAILURE=log %t g fS 2>&1 | FileCheck %s --check-prefix=G-AFTER
//
// Conditional: every arrival at the site needs a fresh foo before it.
// RUN: %t c fSf 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t c fSffSf 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t c fSfSf 2>&1 | FileCheck %s --check-prefix=C-AGAIN
// RUN: env VIGIL_ON_FAILURE=log %t c fS 2>&1 | FileCheck %s --check-prefix=C-AFTER
//
// Strict: exactly foo, site, foo.
// RUN: %t s fSf 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t s ffSf 2>&1 | FileCheck %s --check-prefix=S-EXTRA
// RUN: env VIGIL_ON_FAILURE=log %t s fSff 2>&1 | FileCheck %s --check-prefix=S-EXTRA
// RUN: env VIGIL_ON_FAILURE=log %t s fSfS 2>&1 | FileCheck %s --check-prefix=S-SITE
// RUN: env VIGIL_ON_FAILURE=log %t s f 2>&1 | FileCheck %s --check-prefix=S-NOSITE
// RUN: env VIGIL_ON_FAILURE=log %t s fS 2>&1 | FileCheck %s --check-prefix=S-AFTER
// docs/engine.md: a bound with no event of the assertion is never touched,
// so strict mode has nothing to check (assertion-language.md says such a
// bound fails with site-not-reached; engine.md is followed here).
// RUN: %t s - 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
#include <stdio.h>
#include <string.h>
#include <tesla.h>

void foo(void) {}

int g(const char *trace);
int c(const char *trace);
int s(const char *trace);

void site_g(void) {
  TESLA_WITHIN(g, TSEQUENCE(call(foo), TESLA_ASSERTION_SITE, call(foo)));
}
void site_c(void) {
  TESLA_WITHIN(c, conditional(TSEQUENCE(call(foo), TESLA_ASSERTION_SITE, call(foo))));
}
void site_s(void) {
  TESLA_WITHIN(s, strict(TSEQUENCE(call(foo), TESLA_ASSERTION_SITE, call(foo))));
}

static void run(const char *trace, void (*site)(void)) {
  for (const char *p = trace; *p; p++) {
    if (*p == 'f')
      foo();
    else if (*p == 'S') {
      fprintf(stderr, "site %d\n", (int)(p - trace));
      site();
    }
  }
}

int g(const char *trace) { run(trace, site_g); return 0; }
int c(const char *trace) { run(trace, site_c); return 0; }
int s(const char *trace) { run(trace, site_s); return 0; }

int main(int argc, char **argv) {
  if (argc < 3)
    return 2;
  foo(); /* outside every bound: ignored */
  if (!strcmp(argv[1], "g")) g(argv[2]);
  if (!strcmp(argv[1], "c")) c(argv[2]);
  if (!strcmp(argv[1], "s")) s(argv[2]);
  foo();
  fprintf(stderr, "done\n");
  return 0;
}
// OK: done
//
// G-BEFORE: site 0
// G-BEFORE-NEXT: vigil: assertion failed at {{.*}}tesla-lang-repeated.c:{{[0-9]+}}:3
// G-BEFORE: reason: required event call(foo) did not happen before the assertion site (missing-before-site)
// G-BEFORE-NOT: assertion failed
// G-BEFORE: done
//
// G-AFTER: site 1
// G-AFTER: vigil: assertion failed at {{.*}}tesla-lang-repeated.c:{{[0-9]+}}:3
// G-AFTER: reason: required event call(foo) did not happen after the assertion site before the bound ended (missing-after-site)
// G-AFTER-NOT: assertion failed
// G-AFTER: done
//
// C-AGAIN: site 1
// C-AGAIN-NOT: assertion failed
// C-AGAIN: site 3
// C-AGAIN-NEXT: vigil: assertion failed at {{.*}}tesla-lang-repeated.c:{{[0-9]+}}:3
// C-AGAIN: (missing-before-site)
// C-AGAIN-NOT: assertion failed
// C-AGAIN: done
//
// C-AFTER: site 1
// C-AFTER: vigil: assertion failed
// C-AFTER: (missing-after-site)
// C-AFTER: done
//
// S-EXTRA: vigil: assertion failed at {{.*}}tesla-lang-repeated.c:{{[0-9]+}}:3
// S-EXTRA: reason: strict mode: call(foo) is not a transition {{.*}}(unexpected-event)
// S-EXTRA-NOT: assertion failed
// S-EXTRA: done
//
// S-SITE: site 3
// S-SITE-NEXT: vigil: assertion failed
// S-SITE: (unexpected-event)
// S-SITE: event: TESLA_ASSERTION_SITE
// S-SITE: done
//
// S-NOSITE: vigil: assertion failed
// S-NOSITE: reason: strict mode: the bound ended without completing the sequence (site-not-reached)
// S-NOSITE: done
//
// S-AFTER: site 1
// S-AFTER: vigil: assertion failed
// S-AFTER: (missing-after-site)
// S-AFTER: done
