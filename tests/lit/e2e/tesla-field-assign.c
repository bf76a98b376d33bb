// Port of TESLA's Integration/field-assign.c: a strict sequence of field
// assignments in main()'s bound: field0 = DIGITS_OF_PI, field1++,
// field1--, the site, field1-- (`++`/`--` in the assertion are `+= 1` /
// `-= 1`).  The initialisation `field1 = 42` is no event of the assertion:
// it neither adds nor subtracts 1.  Plus the compound forms, `+= 1` and
// `-= 1`, written in the program.
// RUN: %vigil-cc -O1 %s -o %t
// RUN: %t ok 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ALGORITHM=history %t ok 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t compound 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t no-final 2>&1 | FileCheck %s --check-prefix=NOFINAL
// RUN: env VIGIL_ON_FAILURE=log %t extra-after 2>&1 | FileCheck %s --check-prefix=EXTRA
// RUN: env VIGIL_ON_FAILURE=log %t skip-inc 2>&1 | FileCheck %s --check-prefix=BEFORE
// RUN: env VIGIL_ON_FAILURE=log %t wrong-pi 2>&1 | FileCheck %s --check-prefix=BEFORE
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <tesla-macros.h>

#define DIGITS_OF_PI 31415926

struct some_structure {
  int64_t field0;
  int32_t field1;
};

int main(int argc, char *argv[]) {
  const char *m = argc > 1 ? argv[1] : "ok";
  static struct some_structure s; /* zero: field1 = 42 adds 42 */
  struct some_structure *sp = &s;
  (void)sp; /* used by the assertion only */

  s.field0 = strcmp(m, "wrong-pi") ? DIGITS_OF_PI : 27182818;
  s.field1 = 42;
  if (!strcmp(m, "compound")) {
    s.field1 += 1;
    s.field1 -= 1;
  } else {
    if (strcmp(m, "skip-inc"))
      s.field1++;
    s.field1--;
  }
  fprintf(stderr, "assertion\n");
  TESLA_WITHIN(main, strict(TSEQUENCE(
      sp->field0 = DIGITS_OF_PI,
      sp->field1++,
      sp->field1--,
      TESLA_ASSERTION_SITE,
      sp->field1--)));
  if (strcmp(m, "no-final"))
    --s.field1;
  if (!strcmp(m, "extra-after")) {
    fprintf(stderr, "extra\n");
    s.field1--;
  }
  fprintf(stderr, "done\n");
  return 0;
}
// OK: assertion
// OK: done
//
// NOFINAL: assertion
// NOFINAL-NOT: assertion failed
// NOFINAL: done
// NOFINAL-NEXT: vigil: assertion failed at {{.*}}tesla-field-assign.c:{{[0-9]+}}:3
// NOFINAL: (missing-after-site)
//
// EXTRA: extra
// EXTRA-NEXT: vigil: assertion failed at {{.*}}tesla-field-assign.c:{{[0-9]+}}:3
// EXTRA: (unexpected-event)
// EXTRA-NOT: assertion failed
// EXTRA: done
//
// Before the site the automaton depends on sp, captured at the site: a
// strict violation there is found at the site (docs/engine.md), with a
// reason that depends on the attempt.
// BEFORE: assertion
// BEFORE-NEXT: vigil: assertion failed at {{.*}}tesla-field-assign.c:{{[0-9]+}}:3
// BEFORE: ({{missing-before-site|wrong-order|unexpected-event|event-before-site}})
// BEFORE-NOT: assertion failed
// BEFORE: done
