// Assertion 3.1 of the ThinTESLA dissertation: its symbols, pattern, engine
// and compiled DFA (states with flags, need, named/early events, distance
// and transitions; the bounds never change the state and are not listed).
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

// CHECK:      assertion {{.*}}text.c:13:3
// CHECK-NEXT:   text:     TESLA_WITHIN(syscall, TSEQUENCE(firstFunction() == 0 || call(secondFunction), TESLA_ASSERTION_SITE, optional(lastFunction(x) == y)))
// CHECK-NEXT:   locality: perthread
// CHECK-NEXT:   mode:     guideline
// CHECK-NEXT:   captures: #0=x #1=y
// CHECK-NEXT:   free:     none
// CHECK-NEXT:   symbols:
// CHECK-NEXT:     [0] start (at call) syscall  "call(syscall)"  static
// CHECK-NEXT:     [1] end (at return) syscall  "returnfrom(syscall)"  static
// CHECK-NEXT:     [2] site  "TESLA_ASSERTION_SITE"
// CHECK-NEXT:     [3] return firstFunction  "firstFunction() == 0"  static
// CHECK-NEXT:         values: ret=const:0x0(0)
// CHECK-NEXT:     [4] call secondFunction  "call(secondFunction)"  static
// CHECK-NEXT:     [5] return lastFunction  "lastFunction(x) == y"  -
// CHECK-NEXT:         values: arg0=capture#0(x) ret=capture#1(y)
// CHECK-NEXT:   alternative 0: TSEQUENCE(firstFunction() == 0 || call(secondFunction), TESLA_ASSERTION_SITE, optional(lastFunction(x) == y))
// CHECK-NEXT:     pattern: (firstFunction() == 0 || call(secondFunction)), SITE, lastFunction(x) == y?
// CHECK-NEXT:     engine:  forward, inline fast path
// CHECK-NEXT:     dfa:     6 states, post-site start s3
// CHECK-NEXT:       s0 [initial] need=3,4 named=3 dist=1: 3->s1 4->s2 5->s0
// CHECK-NEXT:       s1 [site-ok] need=2,4 dist=0: 2->s3 3->s1 4->s2 5->s4
// CHECK-NEXT:       s2 [site-ok] need=2,3 dist=0: 2->s3 3->s1 4->s2 5->s4
// CHECK-NEXT:       s3 [past-site,final] need=5 dist=0: 2->s3 3->s3 4->s3 5->s5
// CHECK-NEXT:       s4 [-] need=3,4 named=3 early=5 dist=1: 3->s1 4->s2 5->s4
// CHECK-NEXT:       s5 [past-site,final] need=- dist=0: 2->s5 3->s5 4->s5
