// vigil record --uprobe on an unmodified program (plain clang -O1 -g, no
// vigil-cc): func is called 100 times with six known arguments; the stream
// has exactly 100 entries and 100 returns, each with its arguments and its
// return value, in order, every sequence number present, nothing lost.
// hello names the command and its pid (not vigil's); vigil record's exit
// status is the command's (3).
// REQUIRES: bpf-record
// RUN: %clang-plain -O1 -g %s -o %t
// RUN: %python %S/Inputs/status.py 3 %vigil-bin record --uprobe %t:func --stream file:%t.bson -- %t 100 2> %t.err
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: %check-stream %t.bson --hello --strict --tids --values func/entry --values func/return > %t.out
// RUN: FileCheck %s < %t.out
// Every record, in order, against what the program computed:
// RUN: %python -c "exec('for i in range(100):\n a = [i, i + 1, 2 * i, -i, i ^ 5, 100 - i]\n print(\'value func/entry \' + \' \'.join(str(x %% 2**64) for x in a))\n print(\'value func/return %%d\' %% sum((k + 1) * x for k, x in enumerate(a)))')" > %t.expected
// RUN: grep '^value' %t.out | diff %t.expected -
#include <stdlib.h>

__attribute__((noinline)) long func(long a, long b, long c, long d, long e, long f) {
  return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f;
}

int main(int argc, char **argv) {
  long n = atol(argv[1]), s = 0, want = 0;
  for (long i = 0; i < n; i++) {
    s += func(i, i + 1, 2 * i, -i, i ^ 5, 100 - i);
    want += i + 2 * (i + 1) + 6 * i - 4 * i + 5 * (i ^ 5) + 6 * (100 - i);
  }
  return s == want ? 3 : 1;
}
// ERR: vigil record: 1 function, 0 tracepoints; running {{.*}}uprobe.c.tmp (pid {{[0-9]+}}); streaming to file:{{.*}}uprobe.c.tmp.bson
// CHECK: threads 1 batches {{[0-9]+}} events 200 lost 0 produced 200
// CHECK-NEXT: event func/entry 100
// CHECK-NEXT: event func/return 100
// CHECK-NEXT: hello program {{.*}}uprobe.c.tmp pid [[PID:[0-9]+]] mode discard
// CHECK-NEXT: declare func/entry args u64,u64,u64,u64,u64,u64 names arg0,arg1,arg2,arg3,arg4,arg5
// CHECK-NEXT: declare func/return args i64 names ret
// CHECK-NEXT: value func/entry 0 1 0 0 5 100
// CHECK-NEXT: value func/return 627
// CHECK: strict ok
// CHECK-NEXT: tid [[PID]] produced 200 lost 0
// CHECK-NOT: tid
