// vigil-cc --vigil-trace: entry and return of the matching functions are
// recorded (1 000 calls of work: 1 000 entries and 1 000 returns), other
// functions are not, and a bad @FILE line is refused with FILE:LINE.
// RUN: %vigil-cc --vigil-trace=work,oth* -O2 %s -o %t
// RUN: env VIGIL_STREAM=file:%t.bson %t 1000
// RUN: %check-stream %t.bson | FileCheck %s
// RUN: printf 'work\nwork other\n' > %t.list
// RUN: not %vigil-cc --vigil-trace=@%t.list -O2 %s -o %t.bad 2>&1 | FileCheck %s --check-prefix=BAD
#include <stdlib.h>
__attribute__((noinline)) long work(long a, int *p) { return a * 2 + (p ? *p : 0); }
__attribute__((noinline)) void other(double d) { (void)d; }
__attribute__((noinline)) void untraced(void) {}
int main(int argc, char **argv) {
  long n = atol(argv[1]), s = 0;
  int x = 1;
  for (long i = 0; i < n; i++)
    s += work(i, &x);
  other(1.0);
  untraced();
  return s == 0;
}
// CHECK: threads 1 batches {{[0-9]+}} events 2002 lost 0 produced 2002
// CHECK-NEXT: event other/entry 1
// CHECK-NEXT: event other/return 1
// CHECK-NEXT: event work/entry 1000
// CHECK-NEXT: event work/return 1000
// CHECK-NOT: untraced
// BAD: .list:2: one function name or glob per line
