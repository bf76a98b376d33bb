// Report stacks are symbolised at report time (runtime/symbolize.c):
// `file:line:col in function`, inlined frames included, as objects in the
// JSON report; without debug info, with VIGIL_SYMBOLIZE=0 or without
// llvm-symbolizer, the function and module+offset.
// RUN: %vigil-cc -g -O1 %s -o %t
// RUN: env VIGIL_ON_FAILURE=log VIGIL_REPORT=%t.jsonl %t 2>&1 | FileCheck %s --check-prefix=TEXT
// RUN: FileCheck %s --check-prefix=JSON < %t.jsonl
// RUN: env VIGIL_ON_FAILURE=log VIGIL_SYMBOLIZE=0 %t 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: env VIGIL_ON_FAILURE=log VIGIL_SYMBOLIZER=%t.missing %t 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: %vigil-cc -O1 %s -o %t.nodebug
// RUN: env VIGIL_ON_FAILURE=log %t.nodebug 2>&1 | FileCheck %s --check-prefix=NODEBUG
#include <stdio.h>
#include <tesla.h>

int main(void);
int check(int x) { return x; }

static inline __attribute__((always_inline)) void helper(int x) {
  TESLA_WITHIN(main, previously(check(x) == 0)); // SITE
}

__attribute__((noinline)) void open_it(int x) {
  helper(x); // CALL
}

int main(void) {
  open_it(3); // MAIN
  puts("done");
  return 0;
}

// TEXT:      backtrace:
// TEXT-NEXT: #0 {{.*}}symbolize.c:19:3 in helper (inlined)
// TEXT-NEXT: #1 {{.*}}symbolize.c:23:3 in open_it (symbolize.c.tmp+0x{{[0-9a-f]+}})
// TEXT-NEXT: #2 {{.*}}symbolize.c:27:3 in main (symbolize.c.tmp+0x{{[0-9a-f]+}})
// TEXT:      done

// JSON: "backtrace":[{"address":"0x{{[0-9a-f]+}}","module":"{{.*}}symbolize.c.tmp","offset":"0x{{[0-9a-f]+}}","function":"helper","file":"{{.*}}symbolize.c","line":19,"column":3,"inlined":true},{"address":"0x{{[0-9a-f]+}}","module":"{{.*}}","offset":"0x{{[0-9a-f]+}}","function":"open_it","file":"{{.*}}symbolize.c","line":23,"column":3,"inlined":false},{{.*}}"function":"main",

// OFF:      backtrace:
// OFF-NEXT: #0 open_it (symbolize.c.tmp+0x{{[0-9a-f]+}})
// OFF-NEXT: #1 main (symbolize.c.tmp+0x{{[0-9a-f]+}})

// NODEBUG:      backtrace:
// NODEBUG-NEXT: #0 open_it (symbolize.c.tmp.nodebug+0x{{[0-9a-f]+}})
// NODEBUG-NEXT: #1 main (symbolize.c.tmp.nodebug+0x{{[0-9a-f]+}})
