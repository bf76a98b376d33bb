// The shape of a function traced in its body (compiler/pass/TraceClone.cpp):
// f starts with the stream flag's test and a tail call of its traced copy
// f.vigil.traced (internal), and f's own path has no record and saves no
// register (the tiny leaf of docs/performance.md, "Tracing when the stream
// is off").  Variadic functions and functions with a musttail call inside
// are not split and are traced in place as before.  The IR is the linked
// module after the LTO pipeline (lld --save-temps); the assembly is the
// program's.  The stream has the same records either way.
// RUN: %vigil-cc --vigil-trace=f,v,m -O2 %s -o %t -Wl,--save-temps 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: llvm-dis %t.0.4.opt.bc -o - | FileCheck %s --check-prefix=IR
// RUN: llvm-objdump -d --no-show-raw-insn %t | FileCheck %s --check-prefix=ASM
// RUN: llvm-nm %t | FileCheck %s --check-prefix=NM
// RUN: %vigil-cc --vigil-trace=f -O0 %s -o %t.O0
// RUN: llvm-objdump -d --no-show-raw-insn %t.O0 | FileCheck %s --check-prefix=ASM0
// RUN: %t 3 | FileCheck %s --check-prefix=OUT
// RUN: env VIGIL_STREAM=file:%t.bson %t 3 | FileCheck %s --check-prefix=OUT
// RUN: %check-stream %t.bson --values f/entry --values f/return | FileCheck %s --check-prefix=STREAM
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* split: a tiny leaf */
__attribute__((noinline)) long f(long i, long t) { return (i ^ t) + 1; }

/* not split: variadic */
__attribute__((noinline)) long v(int n, ...) {
  va_list ap;
  va_start(ap, n);
  long s = 0;
  for (int k = 0; k < n; k++)
    s += va_arg(ap, long);
  va_end(ap);
  return s;
}

/* not split: a musttail call inside */
__attribute__((noinline)) long g(long i, long t) { return i - t; }
__attribute__((noinline)) long m(long i, long t) {
  if (i < 0)
    return 0;
  __attribute__((musttail)) return g(i, t);
}

int main(int argc, char **argv) {
  long n = atol(argv[1]), t = 0;
  for (long i = 0; i < n; i++)
    t = f(i, t) + v(2, i, t) + m(i, t);
  printf("%ld\n", t);
  return 0;
}
// WARN: vigil: warning: --vigil-trace: a return of 'm' is a musttail call; its return is not recorded

// IR-LABEL: define {{.*}} i64 @f(i64 {{.*}}%0, i64 {{.*}}%1)
// IR-NEXT:  {{.*}}:
// IR-NEXT:    [[ON:%.*]] = load i8, ptr @__vigil_stream_on
// IR-NEXT:    [[TEST:%.*]] = icmp {{eq|ne}} i8 [[ON]], 0
// IR-NEXT:    br i1 [[TEST]], label
// IR-EMPTY:
// IR-NEXT:  {{.*}}:
// IR-NEXT:    [[R:%.*]] = musttail call i64 @f.vigil.traced(i64 {{.*}}%0, i64 {{.*}}%1)
// IR-NEXT:    ret i64 [[R]]
// IR-NOT:   __vigil_stream
// IR:       {{^}}}
// IR:       define internal {{.*}} @f.vigil.traced(
// IR:       __vigil_stream_reserve
// IR-NOT:   v.vigil.traced
// IR-NOT:   m.vigil.traced

// f's path: the test, the jump, f's own instructions; no save, no record.
// ASM-LABEL: <f>:
// ASM-NEXT:  leaq {{.*}}<__vigil_stream_on>
// ASM-NEXT:  cmpb $0x0,
// ASM-NEXT:  jne {{.*}} <f.vigil.traced>
// ASM-NOT:   push
// ASM-NOT:   __vigil_stream
// ASM:       retq
// ASM-LABEL: <f.vigil.traced>:
// ASM:       __vigil_stream_reserve

// NM-NOT: m.vigil.traced
// NM-NOT: v.vigil.traced
// NM:     t f.vigil.traced
// NM-NOT: m.vigil.traced
// NM-NOT: v.vigil.traced

// -O0: f keeps its frame pointer, but the test comes before its body.
// ASM0-LABEL: <f>:
// ASM0-NEXT:  pushq %rbp
// ASM0-NEXT:  movq %rsp, %rbp
// ASM0-NEXT:  leaq {{.*}}<__vigil_stream_on>
// ASM0-NEXT:  cmpb $0x0,
// ASM0-NEXT:  je
// ASM0-NEXT:  popq %rbp
// ASM0-NEXT:  jmp {{.*}} <f.vigil.traced>

// OUT: 6

// STREAM: threads 1 batches {{[0-9]+}} events 15 lost 0 produced 15
// STREAM-NEXT: event f/entry 3
// STREAM-NEXT: event f/return 3
// STREAM-NEXT: event m/entry 3
// STREAM-NEXT: event v/entry 3
// STREAM-NEXT: event v/return 3
// STREAM-NEXT: value f/entry 0 0
// STREAM-NEXT: value f/return 1
// STREAM-NEXT: value f/entry 1 1
// STREAM-NEXT: value f/return 1
// STREAM-NEXT: value f/entry 2 {{[0-9]+}}
