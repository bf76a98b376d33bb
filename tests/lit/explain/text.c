// Assertion 3.1 of the ThinTESLA dissertation: events, flags and successors
// as in its Table 3.1.
// RUN: %clang-vigil -fsyntax-only -Xclang -plugin-arg-vigil -Xclang explain=text %s | FileCheck %s
#include <tesla.h>

int syscall(int);
int firstFunction(void);
void secondFunction(void);
int lastFunction(int);

void handler(int x, int y) {
  TESLA_WITHIN(syscall, TSEQUENCE(
      firstFunction() == 0 || call(secondFunction),
      TESLA_ASSERTION_SITE,
      optional(lastFunction(x) == y)));
}

// CHECK:      assertion {{.*}}text.c:12:3
// CHECK-NEXT:   text:     TESLA_WITHIN(syscall, TSEQUENCE(firstFunction() == 0 || call(secondFunction), TESLA_ASSERTION_SITE, optional(lastFunction(x) == y)))
// CHECK-NEXT:   locality: perthread
// CHECK-NEXT:   mode:     guideline
// CHECK-NEXT:   captures: #0=x #1=y
// CHECK-NEXT:   alternative 0: TSEQUENCE(firstFunction() == 0 || call(secondFunction), TESLA_ASSERTION_SITE, optional(lastFunction(x) == y))
// CHECK-NEXT:     automaton: non-static, 6 events, site = event 3
// CHECK-NEXT:     [0] start (at call) syscall  "call(syscall)"
// CHECK-NEXT:         flags: static  successors: 1,2
// CHECK-NEXT:     [1] return firstFunction  "firstFunction() == 0"
// CHECK-NEXT:         values: ret=const:0(0)
// CHECK-NEXT:         flags: static,or  successors: 2,3  or-block: 2
// CHECK-NEXT:     [2] call secondFunction  "call(secondFunction)"
// CHECK-NEXT:         flags: static,or  successors: 3  or-block: 1
// CHECK-NEXT:     [3] site  "TESLA_ASSERTION_SITE"
// CHECK-NEXT:         flags: static,final  successors: 4,5
// CHECK-NEXT:     [4] return lastFunction  "lastFunction(x) == y"
// CHECK-NEXT:         values: arg0=capture#0(x) ret=capture#1(y)
// CHECK-NEXT:         flags: optional,final,post-site  successors: 5
// CHECK-NEXT:     [5] end (at return) syscall  "returnfrom(syscall)"
// CHECK-NEXT:         flags: static  successors: -
