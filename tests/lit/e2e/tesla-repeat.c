// Repetition: REPEAT(m, n, e), UPTO(n, e), ATLEAST(n, e), optional(e), and
// TESLA's Automata/repeat.c pattern (ATLEAST(2, foo), UPTO(3, bar),
// REPEAT(2, 4, baz)) at run time.  Each assertion has its own bound.
// Trace letters: a = start(), r = retry(), g = give_up(), S = the site.
// RUN: %vigil-cc -O1 %s -o %t
//
// rep: previously(call(start), REPEAT(2, 3, call(retry)), call(give_up))
// RUN: %t rep arrgS 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t rep arrrgS 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t rep argarrgS 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t rep argS 2>&1 | FileCheck %s --check-prefix=ORDER
// RUN: env VIGIL_ON_FAILURE=log %t rep arrrrgS 2>&1 | FileCheck %s --check-prefix=ORDER
// RUN: env VIGIL_ON_FAILURE=log %t rep arrS 2>&1 | FileCheck %s --check-prefix=NOGIVEUP
// RUN: env VIGIL_ON_FAILURE=log %t rep rrgS 2>&1 | FileCheck %s --check-prefix=NOSTART
//
// upto: previously(call(start), UPTO(2, call(retry)), call(give_up))
// RUN: %t upto argS 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t upto arrgS 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t upto agS 2>&1 | FileCheck %s --check-prefix=ORDER
// RUN: env VIGIL_ON_FAILURE=log %t upto arrrgS 2>&1 | FileCheck %s --check-prefix=ORDER
//
// atleast: previously(call(start), ATLEAST(2, call(retry)), call(give_up))
// RUN: %t atleast arrgS 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t atleast arrrrrrrgS 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t atleast argS 2>&1 | FileCheck %s --check-prefix=ORDER
//
// any: previously(call(start), REPEAT(1, ANY_REP, call(retry)), call(give_up))
// RUN: %t any argS 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t any arrrrrrrrrrrrgS 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t any agS 2>&1 | FileCheck %s --check-prefix=ORDER
//
// opt: previously(call(start), optional(call(retry)), call(give_up))
// RUN: %t opt agS 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t opt argS 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t opt arrgS 2>&1 | FileCheck %s --check-prefix=ORDER
//
// tesla: previously(ATLEAST(2, call(start)), UPTO(3, call(retry)), REPEAT(2, 4, call(give_up)))
// RUN: %t tesla aarggS 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t tesla aaarrrggggS 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t tesla arggS 2>&1 | FileCheck %s --check-prefix=ORDER
// RUN: env VIGIL_ON_FAILURE=log %t tesla aarrrrggS 2>&1 | FileCheck %s --check-prefix=ORDER
// RUN: env VIGIL_ON_FAILURE=log %t tesla aarggggggS 2>&1 | FileCheck %s --check-prefix=ORDER
// RUN: env VIGIL_ON_FAILURE=log %t tesla aargS 2>&1 | FileCheck %s --check-prefix=ORDER
// RUN: env VIGIL_ON_FAILURE=log %t tesla aaS 2>&1 | FileCheck %s --check-prefix=NORETRY
//
// strict: strict(previously(call(start), REPEAT(2, 3, call(retry)), call(give_up)))
// RUN: %t strict arrgS 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t strict aarrgS 2>&1 | FileCheck %s --check-prefix=STRICT-START
// RUN: env VIGIL_ON_FAILURE=log %t strict argS 2>&1 | FileCheck %s --check-prefix=STRICT-GIVEUP
//
// post: TSEQUENCE(call(start), TESLA_ASSERTION_SITE, UPTO(2, call(retry)), call(give_up))
// RUN: %t post aSrg 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t post aSrrg 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t post aSrrrg 2>&1 | FileCheck %s --check-prefix=POST-ORDER
// RUN: env VIGIL_ON_FAILURE=log %t post aSg 2>&1 | FileCheck %s --check-prefix=POST-ORDER-G
// RUN: env VIGIL_ON_FAILURE=log %t post aSr 2>&1 | FileCheck %s --check-prefix=POST-MISSING
#include <stdio.h>
#include <string.h>
#include <tesla.h>

void start(void) {}
void retry(void) {}
void give_up(void) {}

int rep(const char *t);
int upto(const char *t);
int atleast(const char *t);
int any(const char *t);
int opt(const char *t);
int tesla(const char *t);
int strict_run(const char *t);
int post(const char *t);

void site_rep(void) {
  TESLA_WITHIN(rep, previously(call(start), REPEAT(2, 3, call(retry)), call(give_up)));
}
void site_upto(void) {
  TESLA_WITHIN(upto, previously(call(start), UPTO(2, call(retry)), call(give_up)));
}
void site_atleast(void) {
  TESLA_WITHIN(atleast, previously(call(start), ATLEAST(2, call(retry)), call(give_up)));
}
void site_any(void) {
  TESLA_WITHIN(any, previously(call(start), REPEAT(1, ANY_REP, call(retry)), call(give_up)));
}
void site_opt(void) {
  TESLA_WITHIN(opt, previously(call(start), optional(call(retry)), call(give_up)));
}
void site_tesla(void) {
  TESLA_WITHIN(tesla, previously(ATLEAST(2, call(start)), UPTO(3, call(retry)),
                                 REPEAT(2, 4, call(give_up))));
}
void site_strict(void) {
  TESLA_WITHIN(strict_run,
               strict(previously(call(start), REPEAT(2, 3, call(retry)), call(give_up))));
}
void site_post(void) {
  TESLA_WITHIN(post, TSEQUENCE(call(start), TESLA_ASSERTION_SITE,
                               UPTO(2, call(retry)), call(give_up)));
}

static void run(const char *trace, void (*site)(void)) {
  for (const char *p = trace; *p; p++) {
    switch (*p) {
    case 'a': start(); break;
    case 'r': retry(); break;
    case 'g': give_up(); break;
    case 'S': fprintf(stderr, "site\n"); site(); break;
    }
  }
}

int rep(const char *t) { run(t, site_rep); return 0; }
int upto(const char *t) { run(t, site_upto); return 0; }
int atleast(const char *t) { run(t, site_atleast); return 0; }
int any(const char *t) { run(t, site_any); return 0; }
int opt(const char *t) { run(t, site_opt); return 0; }
int tesla(const char *t) { run(t, site_tesla); return 0; }
int strict_run(const char *t) { run(t, site_strict); return 0; }
int post(const char *t) { run(t, site_post); return 0; }

int main(int argc, char **argv) {
  if (argc < 3)
    return 2;
  const char *m = argv[1], *t = argv[2];
  if (!strcmp(m, "rep")) rep(t);
  if (!strcmp(m, "upto")) upto(t);
  if (!strcmp(m, "atleast")) atleast(t);
  if (!strcmp(m, "any")) any(t);
  if (!strcmp(m, "opt")) opt(t);
  if (!strcmp(m, "tesla")) tesla(t);
  if (!strcmp(m, "strict")) strict_run(t);
  if (!strcmp(m, "post")) post(t);
  fprintf(stderr, "done\n");
  return 0;
}
// OK: done
//
// Too few or too many repetitions end the attempt; every event the pattern
// needs did happen, so the report is wrong-order.
// ORDER: site
// ORDER-NEXT: vigil: assertion failed at {{.*}}tesla-repeat.c:{{[0-9]+}}:3
// ORDER: (wrong-order)
// ORDER-NOT: assertion failed
// ORDER: done
//
// NOGIVEUP: site
// NOGIVEUP-NEXT: vigil: assertion failed
// NOGIVEUP: reason: required event call(give_up) did not happen before the assertion site (missing-before-site)
// NOGIVEUP: done
// NOSTART: site
// NOSTART-NEXT: vigil: assertion failed
// NOSTART: reason: required event call(start) did not happen before the assertion site (missing-before-site)
// NOSTART: done
// NORETRY: site
// NORETRY-NEXT: vigil: assertion failed
// NORETRY: reason: required event call(retry) did not happen before the assertion site (missing-before-site)
// NORETRY: done
//
// STRICT-START: vigil: assertion failed
// STRICT-START: reason: strict mode: call(start) is not a transition {{.*}}(unexpected-event)
// STRICT-START: site
// STRICT-START: done
// STRICT-GIVEUP: vigil: assertion failed
// STRICT-GIVEUP: reason: strict mode: call(give_up) is not a transition {{.*}}(unexpected-event)
// STRICT-GIVEUP: site
// STRICT-GIVEUP: done
//
// POST-ORDER: site
// POST-ORDER-NEXT: vigil: assertion failed
// POST-ORDER: reason: call(retry) happened, but not in the order the assertion requires (wrong-order)
// POST-ORDER: done
// POST-ORDER-G: site
// POST-ORDER-G-NEXT: vigil: assertion failed
// POST-ORDER-G: reason: call(give_up) happened, but not in the order the assertion requires (wrong-order)
// POST-ORDER-G: done
// POST-MISSING: site
// POST-MISSING: vigil: assertion failed
// POST-MISSING: (missing-after-site)
// POST-MISSING: done
