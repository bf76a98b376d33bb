// Values captured before the site, kept in the inline log (vigil/abi.h
// "Inline log", compiler/pass/HooksStore.cpp, runtime/inline_log.c).  The
// assertion's events before the site carry a value the site captures, so
// each is recorded; its hooks append the event to the instance's log of 8
// entries without calling the runtime, and the runtime replays the log, in
// order, before the site.  A window of more events overflows the log: the
// 9th calls the runtime, which takes the 8 first and then that one.  The
// verdicts, reports and statistics must be those of the engine without the
// log (VIGIL_FAST_PATH=0 links every hook as a runtime call: run-all.sh runs
// this file both ways), for both stores and both precisions.
//
// The hook of val() appends inline: a compare-and-swap claims the entry,
// and the runtime call is the fall-back (overflow, after the site).
// RUN: env VIGIL_FAST_PATH=1 %vigil-cc -O1 %s -o %t.inl
// RUN: llvm-objdump -d --no-show-raw-insn --disassemble-symbols=val %t.inl | FileCheck %s --check-prefix=ASM
//
// RUN: %vigil-cc -O1 %s -o %t
// A few events, all in the log: the site passes.
// RUN: %t few 2>&1 | FileCheck %s --check-prefix=OK
// RUN: env VIGIL_ALGORITHM=history %t few 2>&1 | FileCheck %s --check-prefix=OK
// RUN: env VIGIL_PRECISE=0 %t few 2>&1 | FileCheck %s --check-prefix=OK
// 21 events: the log overflows and hands over; the match is the last one.
// RUN: %t many 2>&1 | FileCheck %s --check-prefix=OK
// RUN: env VIGIL_ALGORITHM=history %t many 2>&1 | FileCheck %s --check-prefix=OK
// A violation found through the log (no event with the site's value),
// reported as before: the event named, the captured value.
// RUN: env VIGIL_ON_FAILURE=log %t wrong 2>&1 | FileCheck %s --check-prefix=WRONG
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ALGORITHM=history %t wrong 2>&1 | FileCheck %s --check-prefix=WRONG
// RUN: env VIGIL_ON_FAILURE=log VIGIL_PRECISE=0 %t wrong 2>&1 | FileCheck %s --check-prefix=WRONG
// The same past the overflow.
// RUN: env VIGIL_ON_FAILURE=log %t wrong-many 2>&1 | FileCheck %s --check-prefix=WRONG
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ALGORITHM=history %t wrong-many 2>&1 | FileCheck %s --check-prefix=WRONG
// 1 000 bounds of 1 to 15 events, every 7th without a match: 143 failures,
// and every event the runtime saw counted (6 617, drained ones included;
// all 9 851 with every hook a runtime call: the bounds whose log held every
// event and whose site passed call nothing, HooksLogSite.cpp).
// RUN: env VIGIL_ON_FAILURE=count VIGIL_STATS=1 %t loop 2>&1 | FileCheck %s --check-prefixes=LOOP,LOOP-%fastpath
// RUN: env VIGIL_ON_FAILURE=count VIGIL_STATS=1 VIGIL_ALGORITHM=history %t loop 2>&1 | FileCheck %s --check-prefixes=LOOP,LOOP-%fastpath
//
// Global: the same log in the shared instance, under the bound's lock.
// RUN: %vigil-cc -DGLOBAL -O1 %s -o %t.g
// RUN: %t.g few 2>&1 | FileCheck %s --check-prefix=OK
// RUN: %t.g many 2>&1 | FileCheck %s --check-prefix=OK
// RUN: env VIGIL_ON_FAILURE=log %t.g wrong-many 2>&1 | FileCheck %s --check-prefix=WRONG-GLOBAL
// RUN: env VIGIL_ON_FAILURE=count VIGIL_STATS=1 %t.g loop 2>&1 | FileCheck %s --check-prefixes=LOOP,LOOP-%fastpath
#include <stdio.h>
#include <string.h>
#include <tesla.h>

__attribute__((noinline)) void one(void) { __asm__ volatile(""); }
__attribute__((noinline)) void val(int x) { __asm__ volatile("" ::"r"(x)); }
__attribute__((noinline)) void args(int x, int c) { __asm__ volatile("" ::"r"(x), "r"(c)); }
__attribute__((noinline)) void two(void) { __asm__ volatile(""); }
int serve(int i, int noise, int match);

__attribute__((noinline)) void check(int i) {
#ifdef GLOBAL
  TESLA_GLOBAL(call(serve), returnfrom(serve),
               TSEQUENCE(call(one), call(args(i, 3)) || call(val(i)),
                         TESLA_ASSERTION_SITE, call(two)));
#else
  TESLA_WITHIN(serve, TSEQUENCE(call(one), call(args(i, 3)) || call(val(i)),
                                TESLA_ASSERTION_SITE, call(two)));
#endif
}

int serve(int i, int noise, int match) {
  one();
  for (int k = 0; k < noise; k++)
    val(i + 1 + k); /* other values: recorded, then ignored at the site */
  if (match == 1)
    args(i, 3);
  if (match == 2)
    val(i);
  check(i);
  two();
  return 0;
}

int main(int argc, char **argv) {
  (void)argc;
  const char *m = argv[1];
  if (!strcmp(m, "few"))
    serve(5, 1, 2);
  else if (!strcmp(m, "many"))
    serve(5, 20, 1);
  else if (!strcmp(m, "wrong"))
    serve(5, 1, 0);
  else if (!strcmp(m, "wrong-many"))
    serve(5, 20, 0);
  else if (!strcmp(m, "loop"))
    for (int i = 0; i < 1000; i++)
      serve(i, i % 13, i % 7 ? 1 + i % 2 : 0);
  puts("done");
  return 0;
}
// ASM: <val>:
// ASM-NOT: callq
// ASM: cmpxchg
// ASM: callq {{.*}}<__vigil_event>
// OK-NOT: vigil
// OK: done
// WRONG: vigil: assertion failed at {{.*}}inline-log.c:{{[0-9]+}}:3
// WRONG-NEXT: TESLA_WITHIN(serve, TSEQUENCE(call(one), call(args(i, 3)) || call(val(i)), TESLA_ASSERTION_SITE, call(two)))
// WRONG-NEXT: reason: required event call(args(i, 3)) did not happen before the assertion site (missing-before-site)
// WRONG-NEXT: event: call(args(i, 3))
// WRONG-NEXT: values: i = 5, argument 2 (3) = 3
// WRONG-NEXT: allowed: call(args(i, 3)) | call(val(i))
// WRONG-NOT: assertion failed
// WRONG: done
// LOOP-FAST: inline-log.c:{{[0-9]+}}:3{{ +}}1000{{ +}}6617{{ +}}857{{ +}}143{{ +}}0
// LOOP-NOFAST: inline-log.c:{{[0-9]+}}:3{{ +}}1000{{ +}}9851{{ +}}857{{ +}}143{{ +}}0
// LOOP: vigil: 143 violations counted
// LOOP: done
// WRONG-GLOBAL: vigil: assertion failed at {{.*}}inline-log.c:{{[0-9]+}}:3
// WRONG-GLOBAL: reason: required event call(args(i, 3)) did not happen before the assertion site (missing-before-site)
// WRONG-GLOBAL-NEXT: event: call(args(i, 3))
// WRONG-GLOBAL-NEXT: values: i = 5, argument 2 (3) = 3
// WRONG-GLOBAL-NOT: assertion failed
// WRONG-GLOBAL: done
