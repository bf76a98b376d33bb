// The site decided inline from the inline log (compiler/pass/HooksLogSite.cpp,
// vigil/fastpath.h vigil_fast_log_site, runtime/inline_log.c).  Benchmark H's
// shape: values captured before the site, OR blocks before and after it.
// The site replays the log's entries that carry its value through the DFA;
// a passing bound then never calls the runtime.  Whenever the runtime is
// called later in the bound (another tuple, another tuple's event after the
// site, a full log, a bound that ends before its events after the site) it
// rebuilds the same history from the log, so every verdict and report is the
// one of the build without the inline path (VIGIL_FAST_PATH=0: each RUN
// below is checked against both builds).
//
// RUN: %vigil-cc -O1 %s -o %t
// RUN: env VIGIL_FAST_PATH=0 %vigil-cc -O1 %s -o %t.slow
// RUN: %t pass 2>&1 | FileCheck %s --check-prefix=OK
// RUN: %t.slow pass 2>&1 | FileCheck %s --check-prefix=OK
// 1 000 passing bounds: the runtime sees only the thread's first bound (it
// registers the instance) -- the rest is inline.
// RUN: env VIGIL_STATS=1 %t loop 2>&1 | FileCheck %s --check-prefix=LOOP-%fastpath
// RUN: env VIGIL_STATS=1 %t.slow loop 2>&1 | FileCheck %s --check-prefix=LOOP-SLOW
// A second tuple at the site after an inline one: the runtime replays the
// rebuilt store for it (passes; or fails, naming its value).
// RUN: %t second 2>&1 | FileCheck %s --check-prefix=OK
// RUN: %t.slow second 2>&1 | FileCheck %s --check-prefix=OK
// RUN: env VIGIL_ON_FAILURE=log %t second-wrong 2>&1 | FileCheck %s --check-prefix=SECOND
// RUN: env VIGIL_ON_FAILURE=log %t.slow second-wrong 2>&1 | FileCheck %s --check-prefix=SECOND
// The bound ends before the events after the site: missing-after-site.
// RUN: env VIGIL_ON_FAILURE=log %t after 2>&1 | FileCheck %s --check-prefix=AFTER
// RUN: env VIGIL_ON_FAILURE=log %t.slow after 2>&1 | FileCheck %s --check-prefix=AFTER
// Another tuple's event after the site, then ours: the runtime takes over.
// RUN: %t post-noise 2>&1 | FileCheck %s --check-prefix=OK
// RUN: %t.slow post-noise 2>&1 | FileCheck %s --check-prefix=OK
// Ten events after the inline site (the log is full: the runtime takes
// over), then a second tuple that needs the events before the site.
// RUN: %t overflow 2>&1 | FileCheck %s --check-prefix=OK
// RUN: %t.slow overflow 2>&1 | FileCheck %s --check-prefix=OK
// A violation at the site: the runtime words it, as before.
// RUN: env VIGIL_ON_FAILURE=log %t wrong 2>&1 | FileCheck %s --check-prefix=WRONG
// RUN: env VIGIL_ON_FAILURE=log %t.slow wrong 2>&1 | FileCheck %s --check-prefix=WRONG
// Global: the same hooks under the bound's lock.
// RUN: %vigil-cc -DGLOBAL -O1 %s -o %t.g
// RUN: %t.g pass 2>&1 | FileCheck %s --check-prefix=OK
// RUN: env VIGIL_STATS=1 %t.g loop 2>&1 | FileCheck %s --check-prefix=LOOP-%fastpath
// RUN: %t.g second 2>&1 | FileCheck %s --check-prefix=OK
// RUN: env VIGIL_ON_FAILURE=log %t.g second-wrong 2>&1 | FileCheck %s --check-prefix=SECOND
// RUN: env VIGIL_ON_FAILURE=log %t.g after 2>&1 | FileCheck %s --check-prefix=AFTER
// RUN: %t.g overflow 2>&1 | FileCheck %s --check-prefix=OK
#include <stdio.h>
#include <string.h>
#include <tesla.h>

__attribute__((noinline)) void one(void) { __asm__ volatile(""); }
__attribute__((noinline)) void val(int x) { __asm__ volatile("" ::"r"(x)); }
__attribute__((noinline)) void args(int x, int c) { __asm__ volatile("" ::"r"(x), "r"(c)); }
__attribute__((noinline)) void key(int x) { __asm__ volatile("" ::"r"(x)); }
__attribute__((noinline)) void two(void) { __asm__ volatile(""); }
int serve(const char *m, int i);

__attribute__((noinline)) void check(int i) {
#ifdef GLOBAL
  TESLA_GLOBAL(call(serve), returnfrom(serve),
               TSEQUENCE(call(one) || call(args(i, 3)), call(val(i)),
                         TESLA_ASSERTION_SITE, call(key(i)) || call(two)));
#else
  TESLA_WITHIN(serve, TSEQUENCE(call(one) || call(args(i, 3)), call(val(i)),
                                TESLA_ASSERTION_SITE, call(key(i)) || call(two)));
#endif
}

int serve(const char *m, int i) {
  args(i + 1, 3); /* another value: recorded, then ignored at the site */
  one();
  args(i, 3);
  val(i + 1);
  if (strcmp(m, "wrong"))
    val(i);
  check(i);
  if (!strcmp(m, "overflow"))
    for (int k = 0; k < 10; k++)
      val(i + 2); /* logged after the inline site until the log is full */
  if (!strcmp(m, "second") || !strcmp(m, "overflow"))
    check(i + 1); /* val(i + 1) came before the site */
  if (!strcmp(m, "second-wrong"))
    check(i + 7); /* no val(i + 7) */
  if (!strcmp(m, "post-noise"))
    key(i + 1); /* another tuple's event */
  if (strcmp(m, "after"))
    key(i);
  if (!strncmp(m, "second", 6) || !strcmp(m, "overflow"))
    two(); /* the other tuple's event after the site */
  return 0;
}

int main(int argc, char **argv) {
  (void)argc;
  const char *m = argv[1];
  if (!strcmp(m, "loop"))
    for (int i = 0; i < 1000; i++)
      serve("pass", i);
  else
    serve(m, 5);
  puts("done");
  return 0;
}
// OK-NOT: vigil
// OK: done
// LOOP-FAST: vigil: statistics (1 assertions)
// LOOP-FAST: log-site.c:{{[0-9]+}}:3{{ +}}1000{{ +}}{{[0-9]}}{{ +}}1000{{ +}}0{{ +}}0
// LOOP-SLOW: log-site.c:{{[0-9]+}}:3{{ +}}1000{{ +}}7000{{ +}}1000{{ +}}0{{ +}}0
// LOOP-NOFAST: log-site.c:{{[0-9]+}}:3{{ +}}1000{{ +}}7000{{ +}}1000{{ +}}0{{ +}}0
// SECOND: vigil: assertion failed at {{.*}}log-site.c:{{[0-9]+}}:3
// SECOND: reason: required event call(val(i)) did not happen before the assertion site (missing-before-site)
// SECOND-NEXT: event: call(val(i))
// SECOND-NEXT: values: i = 12
// SECOND-NOT: assertion failed
// SECOND: done
// AFTER: vigil: assertion failed at {{.*}}log-site.c:{{[0-9]+}}:3
// AFTER: reason: {{.*}}(missing-after-site)
// AFTER: values: i = 5
// AFTER-NOT: assertion failed
// AFTER: done
// WRONG: vigil: assertion failed at {{.*}}log-site.c:{{[0-9]+}}:3
// WRONG: reason: required event call(val(i)) did not happen before the assertion site (missing-before-site)
// WRONG-NEXT: event: call(val(i))
// WRONG-NEXT: values: i = 5
// WRONG-NOT: assertion failed
// WRONG: done
