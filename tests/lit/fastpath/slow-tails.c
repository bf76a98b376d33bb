// A hook's rare runtime call needs the stack (its alignment), the fast
// path does not: compiler/pass/SlowTails.cpp gives the call's block its own
// copy of a small, call-free rest of the function, after the LTO pipeline,
// so that shrink-wrapping keeps the push and pop on the rare path.  An
// empty asm with a memory clobber after the hook (the benchmarks'
// BARRIER()) otherwise made LLVM set up the frame at the entry (issue 15).
// A rest that makes a call is left alone (it needs the frame anyway).
// RUN: %clang-vigil -flto=full -O1 -c %s -o %t.bc
// RUN: env VIGIL_FAST_PATH=1 opt -load-pass-plugin=%vigil-pass "-passes=vigil-instrument,default<O2>" %t.bc -S -o %t.o2.ll
// RUN: opt -load-pass-plugin=%vigil-pass -passes=vigil-slow-tails %t.o2.ll -S -o %t.ll
// RUN: FileCheck %s --check-prefix=IR < %t.ll
// RUN: llc -O2 %t.ll -o - | FileCheck %s --check-prefix=ASM
// The same program linked by vigil-cc (the pass after the LTO pipeline)
// passes, and fails where it should:
// RUN: env VIGIL_FAST_PATH=1 %vigil-cc -O2 %s -o %t
// RUN: %t 2>&1 | FileCheck %s --check-prefix=OK
// RUN: env VIGIL_ON_FAILURE=log %t bad 2>&1 | FileCheck %s --check-prefix=BAD
#include <stdio.h>
#include <tesla.h>

void log_it(void);
void one(void) { __asm__ volatile("" ::: "memory"); }
void two(void) { __asm__ volatile("" ::: "memory"); }
void three(void) { log_it(); }
void run(int bad);
void site(void) {
  TESLA_WITHIN(run, TSEQUENCE(call(one), TESLA_ASSERTION_SITE, call(two), call(three)));
}
void run(int bad) {
  one();
  site();
  if (!bad)
    two();
  three();
}
__attribute__((noinline)) void log_it(void) { __asm__ volatile("" ::: "memory"); }
int main(int argc, char **argv) {
  (void)argv;
  run(argc > 1);
  puts("done");
  return 0;
}
// IR-LABEL: define {{.*}}void @one()
// IR: call {{.*}}void @__vigil_slow_event.0.{{[0-9]+}}()
// IR-NEXT: br label %[[RARE:.*\.rare]]
// IR: asm sideeffect
// IR-NEXT: ret void
// IR: [[RARE]]:
// IR-NEXT: asm sideeffect
// IR-NEXT: ret void
// IR-LABEL: define {{.*}}void @three()
// IR-NOT: .rare
// IR: }
// ASM-LABEL: one:
// ASM-NOT: push
// ASM: cmpb
// ASM: retq
// ASM: pushq
// ASM-NEXT: .cfi_def_cfa_offset 16
// ASM-NEXT: callq __vigil_slow_event
// ASM: popq
// ASM-NEXT: .cfi_def_cfa_offset 8
// ASM-NEXT: retq
// OK-NOT: vigil
// OK: done
// BAD: vigil: assertion failed
// BAD: done
