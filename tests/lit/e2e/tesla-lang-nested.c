// Nested TSEQUENCE: flattened in a top-level sequence, a unit inside an OR
// block, a repetition and after the site.  Each assertion has its own bound.
// Trace letters: a b c d call a() .. d(); 'S' reaches the site.
// RUN: %vigil-cc -O1 %s -o %t
//
// n1: previously(call(a), TSEQUENCE(call(b), call(c)))  ==  a b c
// RUN: %t n1 abcS 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t n1 babcS 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t n1 acbS 2>&1 | FileCheck %s --check-prefix=N1-ORDER
// RUN: env VIGIL_ON_FAILURE=log %t n1 bcS 2>&1 | FileCheck %s --check-prefix=N1-MISSING
//
// n2: previously(call(a), TSEQUENCE(call(b), call(c)) || call(d))
// RUN: %t n2 abcS 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t n2 adS 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t n2 abcdS 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t n2 adbcS 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t n2 abS 2>&1 | FileCheck %s --check-prefix=N2-MISSING
// RUN: env VIGIL_ON_FAILURE=log %t n2 aS 2>&1 | FileCheck %s --check-prefix=N2-MISSING
//
// n3: previously(call(a), REPEAT(2, 2, TSEQUENCE(call(b), call(c))))  ==  a b c b c
// RUN: %t n3 abcbcS 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t n3 abcS 2>&1 | FileCheck %s --check-prefix=N3-ORDER
// RUN: env VIGIL_ON_FAILURE=log %t n3 abbccS 2>&1 | FileCheck %s --check-prefix=N3-ORDER
//
// n4: eventually(TSEQUENCE(call(b), call(c)), call(d))
// RUN: %t n4 Sbcd 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t n4 Sbd 2>&1 | FileCheck %s --check-prefix=N4-ORDER
// RUN: env VIGIL_ON_FAILURE=log %t n4 Sbc 2>&1 | FileCheck %s --check-prefix=N4-AFTER
//
// n5: strict(previously(call(a), TSEQUENCE(call(b), call(c))))
// RUN: %t n5 abcS 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t n5 abbcS 2>&1 | FileCheck %s --check-prefix=N5-STRICT
#include <stdio.h>
#include <string.h>
#include <tesla.h>

void a(void) {}
void b(void) {}
void c(void) {}
void d(void) {}

int n1(const char *t);
int n2(const char *t);
int n3(const char *t);
int n4(const char *t);
int n5(const char *t);

void site1(void) {
  TESLA_WITHIN(n1, previously(call(a), TSEQUENCE(call(b), call(c))));
}
void site2(void) {
  TESLA_WITHIN(n2, previously(call(a), TSEQUENCE(call(b), call(c)) || call(d)));
}
void site3(void) {
  TESLA_WITHIN(n3, previously(call(a), REPEAT(2, 2, TSEQUENCE(call(b), call(c)))));
}
void site4(void) {
  TESLA_WITHIN(n4, eventually(TSEQUENCE(call(b), call(c)), call(d)));
}
void site5(void) {
  TESLA_WITHIN(n5, strict(previously(call(a), TSEQUENCE(call(b), call(c)))));
}

static void run(const char *trace, void (*site)(void)) {
  for (const char *p = trace; *p; p++) {
    switch (*p) {
    case 'a': a(); break;
    case 'b': b(); break;
    case 'c': c(); break;
    case 'd': d(); break;
    case 'S': fprintf(stderr, "site\n"); site(); break;
    }
  }
}

int n1(const char *t) { run(t, site1); return 0; }
int n2(const char *t) { run(t, site2); return 0; }
int n3(const char *t) { run(t, site3); return 0; }
int n4(const char *t) { run(t, site4); return 0; }
int n5(const char *t) { run(t, site5); return 0; }

int main(int argc, char **argv) {
  if (argc < 3)
    return 2;
  const char *m = argv[1], *t = argv[2];
  if (!strcmp(m, "n1")) n1(t);
  if (!strcmp(m, "n2")) n2(t);
  if (!strcmp(m, "n3")) n3(t);
  if (!strcmp(m, "n4")) n4(t);
  if (!strcmp(m, "n5")) n5(t);
  fprintf(stderr, "done\n");
  return 0;
}
// OK: done
//
// a c b: the attempt begun at a ends at c; no attempt is under way at the
// site, and a (the first event the sequence needs) did happen.
// N1-ORDER: site
// N1-ORDER-NEXT: vigil: assertion failed at {{.*}}tesla-lang-nested.c:{{[0-9]+}}:3
// N1-ORDER: (wrong-order)
// N1-ORDER: done
// N1-MISSING: site
// N1-MISSING-NEXT: vigil: assertion failed
// N1-MISSING: reason: required event call(a) did not happen before the assertion site (missing-before-site)
// N1-MISSING: done
//
// N2-MISSING: site
// N2-MISSING-NEXT: vigil: assertion failed
// N2-MISSING: (missing-before-site)
// N2-MISSING: done
//
// a b c and S: a second b c is needed and b did happen.
// N3-ORDER: site
// N3-ORDER-NEXT: vigil: assertion failed
// N3-ORDER: (wrong-order)
// N3-ORDER: done
//
// N4-ORDER: site
// N4-ORDER-NEXT: vigil: assertion failed
// N4-ORDER: reason: call(d) happened, but not in the order the assertion requires (wrong-order)
// N4-ORDER: done
// N4-AFTER: site
// N4-AFTER: vigil: assertion failed
// N4-AFTER: reason: required event call(d) did not happen after the assertion site before the bound ended (missing-after-site)
// N4-AFTER: done
//
// N5-STRICT: vigil: assertion failed
// N5-STRICT: reason: strict mode: call(b) is not a transition {{.*}}(unexpected-event)
// N5-STRICT: site
// N5-STRICT: done
