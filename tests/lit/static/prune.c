// When every assertion is proven, prune mode leaves nothing of vigil on the
// program's paths: its main runs exactly the instructions of the plain
// build's main (clang -O1 -flto=full, the assertions compiled out), counted
// by callgrind, and calls nothing of libvigil.  (libvigil is still linked,
// and its start-up is the only difference in the whole run.)
// REQUIRES: valgrind
// RUN: %vigil-cc --vigil-static=prune -O1 -g %s -o %t 2>&1 | FileCheck %s --check-prefix=LINK
// RUN: clang-19 -O1 -g -flto=full -fuse-ld=lld -I%include %s -o %t.plain
// RUN: %t 1000 | FileCheck %s --check-prefix=OUT
// RUN: valgrind -q --tool=callgrind --callgrind-out-file=%t.cg %t 20000 > /dev/null
// RUN: valgrind -q --tool=callgrind --callgrind-out-file=%t.plain.cg %t.plain 20000 > /dev/null
// RUN: callgrind_annotate --auto=no %t.plain.cg > %t.ann
// RUN: echo == >> %t.ann
// RUN: callgrind_annotate --auto=no %t.cg >> %t.ann
// RUN: grep -E "prune.c:main|^==" %t.ann | FileCheck %s --check-prefix=CG
// RUN: objdump -d --no-show-raw-insn %t | awk '/<main>:/,/^$/' | FileCheck %s --check-prefix=ASM
// The linked IR: the assertions' sites are there before the pass, and
// nothing of vigil is left after it.
// RUN: %vigil-cc --vigil-static=prune -O1 -g %s -o %t.ir -Wl,--save-temps 2>&1 | FileCheck %s --check-prefix=LINK
// RUN: llvm-dis %t.ir.0.0.preopt.bc -o - | FileCheck %s --check-prefix=IR-BEFORE
// RUN: llvm-dis %t.ir.0.5.precodegen.bc -o - | FileCheck %s --check-prefix=IR-AFTER --implicit-check-not=__vigil
#include <stdio.h>
#include <stdlib.h>
#include <tesla.h>

int check(int x) { return x > 0; }
void finish(int *n) { ++*n; }
int sys_checked(int x);
int sys_after(int x);
static void op_checked(void) { TESLA_WITHIN(sys_checked, previously(call(check))); }
static void op_after(void) { TESLA_WITHIN(sys_after, eventually(call(finish))); }
static int validate(int x) { return x < 0 ? check(-x) : check(x); }
static int total;
int sys_checked(int x) { int ok = validate(x); op_checked(); return ok; }
int sys_after(int x) { op_after(); if (x & 1) finish(&total); else finish(&total); return 0; }

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000, ok = 0;
  for (int i = 0; i < n; i++) {
    ok += sys_checked(i);
    sys_after(i);
  }
  printf("%d %d\n", ok, total);
  return 0;
}
// LINK: vigil: static: 2 assertions: 2 proven and removed, 0 violated, 0 unknown (kept at run time)
// OUT: 999 1000
// CG: [[IR:[0-9,]+]] ({{.*}}) {{.*}}prune.c:main
// CG: ==
// CG-NEXT: [[IR]] ({{.*}}) {{.*}}prune.c:main
// ASM-NOT: vigil
// ASM: call {{.*}}<printf
// ASM-NOT: vigil
// IR-BEFORE: call void (ptr, ...) @__vigil_site
// IR-BEFORE: call void (ptr, ...) @__vigil_site
// IR-AFTER: define {{.*}} @sys_checked(
// IR-AFTER: define {{.*}} @main(
