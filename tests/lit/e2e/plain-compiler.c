// Without vigil the header compiles to nothing: the program builds with gcc
// and plain clang, runs unchanged, and never references the runtime.
// REQUIRES: gcc
// RUN: gcc -std=c11 -Wall -Werror -I%include %s -o %t.gcc && %t.gcc | FileCheck %s
// RUN: clang-19 -std=c11 -Wall -Werror -I%include %s -o %t.clang && %t.clang | FileCheck %s
// RUN: nm %t.gcc | FileCheck %s --check-prefix=SYMS
#include <stdio.h>
#include <tesla.h>

int check(int x) { return x; }
int entry(int x);
void site(int x) { TESLA_WITHIN(entry, previously(check(x) == 0)); }
int entry(int x) { site(x); return 0; } /* would fail under vigil */
int main(void) { entry(1); puts("unchanged"); return 0; }
// CHECK: unchanged
// SYMS-NOT: vigil
