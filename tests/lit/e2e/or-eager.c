// Eager instances with several alternatives (issue 15; vigil/abi.h "Eager
// instances"): a per-thread guideline assertion with a top-level OR whose
// alternatives all take their steps inline is initialised at the bound's
// entry, and its exit decides from every alternative's fast state (one
// done: a pass; every one before the site: nothing; else the runtime).
// The verdicts, reports and statistics must be the engine's: lit runs this
// file again with VIGIL_FAST_PATH=0 (no inline path, nothing eager) and
// the same checks hold.  Each script runs in three bounds (each starts
// clean); the statistics line is: instances events passes failures dropped.
// RUN: %vigil-cc -O1 %s -o %t
// The instance is eager (its site's runtime call is out of line, and the
// group's exit calls the runtime through __vigil_fast_settle):
// RUN: env VIGIL_FAST_PATH=1 %vigil-cc -O1 %s -o %t.fast
// RUN: nm %t.fast | grep -c '__vigil_slow_site\.' | FileCheck %s --check-prefix=EAGER
// RUN: nm %t.fast | grep -c '__vigil_fast_settle\.' | FileCheck %s --check-prefix=EAGER
// Passing, by each alternative, by all, nested (the site in a nested call
// of the bound function, its events on either side):
// RUN: env VIGIL_STATS=1 %t as1b 2>&1 | FileCheck %s --check-prefix=PASS
// RUN: env VIGIL_STATS=1 %t cd1x 2>&1 | FileCheck %s --check-prefix=PASS
// RUN: env VIGIL_STATS=1 %t f1 2>&1 | FileCheck %s --check-prefix=PASS
// RUN: env VIGIL_STATS=1 %t acdf1bx 2>&1 | FileCheck %s --check-prefix=PASS
// RUN: env VIGIL_STATS=1 %t 'a(1)b' 2>&1 | FileCheck %s --check-prefix=PASS
// RUN: env VIGIL_STATS=1 %t '(cd)(1)(x)' 2>&1 | FileCheck %s --check-prefix=PASS
// Each alternative failing while another holds:
// RUN: env VIGIL_STATS=1 %t af1 2>&1 | FileCheck %s --check-prefix=PASS
// RUN: env VIGIL_STATS=1 %t acd1by 2>&1 | FileCheck %s --check-prefix=PASS
// RUN: env VIGIL_STATS=1 %t dcf1x 2>&1 | FileCheck %s --check-prefix=PASS
// The site not reached: nothing checked, no pass:
// RUN: env VIGIL_STATS=1 %t acdx 2>&1 | FileCheck %s --check-prefix=QUIET
// Every alternative failing (the report):
// RUN: env VIGIL_ON_FAILURE=log VIGIL_STATS=1 %t 1 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: env VIGIL_ON_FAILURE=log VIGIL_STATS=1 %t a1 2>&1 | FileCheck %s --check-prefix=AFTER
// RUN: env VIGIL_ON_FAILURE=log VIGIL_STATS=1 %t 'cd(1)y' 2>&1 | FileCheck %s --check-prefix=VALUE
// RUN: env VIGIL_ON_FAILURE=log VIGIL_STATS=1 %t dc1 2>&1 | FileCheck %s --check-prefix=ORDER
// A second value tuple after alternative 1 was done for the first (the
// runtime called mid-bound takes the joint state over):
// RUN: env VIGIL_ON_FAILURE=log VIGIL_STATS=1 %t a1b2 2>&1 | FileCheck %s --check-prefix=TUPLE
// RUN: env VIGIL_STATS=1 %t a1b2b 2>&1 | FileCheck %s --check-prefix=PASS
// A longjmp out of the first bound after its site: the next entry drops
// it, alternative 1 waiting for b or done (the engine decides an OR at the
// end of the bound only):
// RUN: env VIGIL_STATS=1 %t a1jb 2>&1 | FileCheck %s --check-prefix=JUMP
// RUN: env VIGIL_STATS=1 %t a1bj 2>&1 | FileCheck %s --check-prefix=JUMPED
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <tesla.h>

void a(void) {}
void b(void) {}
void c(void) {}
void d(void) {}
void e(int v) { (void)v; }
void f(void) {}
static jmp_buf out;
static int jumps = 1; // only the first bound jumps
const char *run(const char *p);

void site(int x) {
  TESLA_WITHIN(run, TSEQUENCE(call(a), TESLA_ASSERTION_SITE, call(b)) ||
                        TSEQUENCE(call(c), call(d), TESLA_ASSERTION_SITE, call(e(x))) ||
                        TSEQUENCE(call(f), TESLA_ASSERTION_SITE));
}

// Runs the script up to its end or a ')' (returns what follows); '('
// calls run again, nested in the bound.
const char *run(const char *p) {
  for (; *p && *p != ')'; p++)
    switch (*p) {
    case 'a': a(); break;
    case 'b': b(); break;
    case 'c': c(); break;
    case 'd': d(); break;
    case 'f': f(); break;
    case 'x': e(1); break;
    case 'y': e(2); break;
    case '1': site(1); break;
    case '2': site(2); break;
    case '(': p = run(p + 1) - 1; break;
    case 'j':
      if (jumps-- > 0)
        longjmp(out, 1);
      break;
    }
  return *p ? p + 1 : p;
}

int main(int argc, char **argv) {
  (void)argc;
  for (volatile int i = 0; i < 3; i++)
    if (!setjmp(out))
      run(argv[1]);
  fputs("done\n", stderr);
  return 0;
}
// EAGER: {{^}}1{{$}}
// PASS-NOT: assertion failed
// PASS: done
// PASS: vigil: statistics (1 assertions)
// PASS: or-eager.c:{{[0-9]+}}:3{{ +}}3{{ +}}{{[0-9]+}}{{ +}}3{{ +}}0{{ +}}0
// QUIET-NOT: assertion failed
// QUIET: or-eager.c:{{[0-9]+}}:3{{ +}}3{{ +}}{{[0-9]+}}{{ +}}0{{ +}}0{{ +}}0
// NONE-COUNT-3: vigil: assertion failed
// NONE: alternative 1: TSEQUENCE(call(a), TESLA_ASSERTION_SITE, call(b))
// NONE-NEXT: required event call(a) did not happen before the assertion site (missing-before-site)
// NONE: alternative 2: TSEQUENCE(call(c), call(d), TESLA_ASSERTION_SITE, call(e(x)))
// NONE-NEXT: required event call(c) did not happen before the assertion site (missing-before-site)
// NONE: alternative 3: TSEQUENCE(call(f), TESLA_ASSERTION_SITE)
// NONE-NEXT: required event call(f) did not happen before the assertion site (missing-before-site)
// The report comes from the runtime called at the bound's exit (out of
// line): its backtrace still shows the program's frames.
// NONE: backtrace:
// NONE-NEXT: #0 {{.*}}run
// NONE-NOT: assertion failed
// NONE: or-eager.c:{{[0-9]+}}:3{{ +}}3{{ +}}{{[0-9]+}}{{ +}}0{{ +}}3{{ +}}0
// AFTER-COUNT-3: vigil: assertion failed
// AFTER: alternative 1: TSEQUENCE(call(a), TESLA_ASSERTION_SITE, call(b))
// AFTER-NEXT: required event call(b) did not happen after the assertion site before the bound ended (missing-after-site)
// AFTER: alternative 2:
// AFTER-NEXT: (missing-before-site)
// AFTER: alternative 3:
// AFTER-NEXT: (missing-before-site)
// AFTER: or-eager.c:{{[0-9]+}}:3{{ +}}3{{ +}}{{[0-9]+}}{{ +}}0{{ +}}3{{ +}}0
// VALUE-COUNT-3: vigil: assertion failed
// VALUE: alternative 2: TSEQUENCE(call(c), call(d), TESLA_ASSERTION_SITE, call(e(x)))
// VALUE-NEXT: (missing-after-site)
// VALUE-NEXT: event: call(e(x))
// VALUE-NEXT: values: x = 1
// VALUE: or-eager.c:{{[0-9]+}}:3{{ +}}3{{ +}}{{[0-9]+}}{{ +}}0{{ +}}3{{ +}}0
// ORDER-COUNT-3: vigil: assertion failed
// ORDER: alternative 2: TSEQUENCE(call(c), call(d), TESLA_ASSERTION_SITE, call(e(x)))
// ORDER-NEXT: (wrong-order)
// ORDER: or-eager.c:{{[0-9]+}}:3{{ +}}3{{ +}}{{[0-9]+}}{{ +}}0{{ +}}3{{ +}}0
// TUPLE-COUNT-3: vigil: assertion failed
// TUPLE: alternative 1: TSEQUENCE(call(a), TESLA_ASSERTION_SITE, call(b))
// TUPLE-NEXT: (missing-after-site)
// TUPLE: values: x = 2
// TUPLE: or-eager.c:{{[0-9]+}}:3{{ +}}3{{ +}}{{[0-9]+}}{{ +}}0{{ +}}3{{ +}}0
// JUMP-NOT: assertion failed
// JUMP: or-eager.c:{{[0-9]+}}:3{{ +}}3{{ +}}{{[0-9]+}}{{ +}}2{{ +}}0{{ +}}1
// JUMPED-NOT: assertion failed
// JUMPED: or-eager.c:{{[0-9]+}}:3{{ +}}3{{ +}}{{[0-9]+}}{{ +}}2{{ +}}0{{ +}}1
