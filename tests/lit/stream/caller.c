// Caller-side tracing: --vigil-trace names functions the program does not
// define (libc's getpid and strlen).  Every direct call records an entry
// just before it, with its arguments, and a return just after it, with its
// result; a call through a function pointer is not seen (docs/stream-format.md,
// "Tracing").  A -g build names the arguments of the functions it defines
// (work: a, s, c from the debug info); return values are `ret`.
// RUN: %vigil-cc --vigil-trace=getpid,strlen,work -g -O1 %s -o %t
// RUN: env VIGIL_STREAM=file:%t.bson %t 3 > %t.out
// RUN: %check-stream %t.bson --hello --values getpid/return --values strlen/entry --values strlen/return --values work/entry > %t.check
// RUN: cat %t.out %t.check | FileCheck %s
// Without debug info the arguments have no names (and an int's sign is unknown).
// RUN: %vigil-cc --vigil-trace=getpid,strlen,work -O1 %s -o %t.nodebug
// RUN: env VIGIL_STREAM=file:%t.nodebug.bson %t.nodebug 1 > /dev/null
// RUN: %check-stream %t.nodebug.bson --hello | FileCheck %s --check-prefix=NODEBUG
// Without VIGIL_STREAM the program runs as before and writes nothing.
// RUN: rm -f %t.none && %t 3 | FileCheck %s --check-prefix=PLAIN && not test -e %t.none
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *words[] = {"a", "bb", "ccc", "dddd"};

__attribute__((noinline)) int work(int a, const char *s, unsigned char c) {
  return a + (int)strlen(s) + c;
}

int main(int argc, char **argv) {
  int n = atoi(argv[1]);
  pid_t (*volatile indirect)(void) = getpid; /* not traced: no direct call */
  pid_t pid = getpid();
  printf("pid %d\n", (int)pid);
  long sum = 0;
  for (int i = 0; i < n; i++) {
    sum += getpid() == pid;
    sum += indirect() == pid;
    sum += (long)strlen(words[i]);
    sum += work(-i, words[i], 200);
  }
  printf("sum %ld\n", sum);
  return 0;
}
// 1 + 3 getpid, 3 strlen in main and 3 in work, 3 work: 13 entries, 13 returns.
// CHECK: pid [[PID:[0-9]+]]
// CHECK-NEXT: sum 615
// CHECK-NEXT: threads 1 batches {{[0-9]+}} events 26 lost 0 produced 26
// CHECK-NEXT: event getpid/entry 4
// CHECK-NEXT: event getpid/return 4
// CHECK-NEXT: event strlen/entry 6
// CHECK-NEXT: event strlen/return 6
// CHECK-NEXT: event work/entry 3
// CHECK-NEXT: event work/return 3
// CHECK-NEXT: hello program {{.*}} pid [[PID]] mode lossless
// CHECK-DAG: declare work/entry args i64,ptr,u64 names a,s,c
// CHECK-DAG: declare work/return args i64 names ret
// CHECK-DAG: declare getpid/entry args - names -
// CHECK-DAG: declare getpid/return args i64 names ret
// CHECK-DAG: declare strlen/entry args ptr names -
// CHECK-DAG: declare strlen/return args u64 names ret
// In stream order; the indirect getpid() leaves no record.
// CHECK: value getpid/return [[PID]]
// CHECK-NEXT: value getpid/return [[PID]]
// CHECK-NEXT: value strlen/entry [[W0:0x[0-9a-f]+]]
// CHECK-NEXT: value strlen/return 1
// CHECK-NEXT: value work/entry 0 [[W0]] 200
// CHECK-NEXT: value strlen/entry [[W0]]
// CHECK-NEXT: value strlen/return 1
// CHECK-NEXT: value getpid/return [[PID]]
// CHECK-NEXT: value strlen/entry [[W1:0x[0-9a-f]+]]
// CHECK-NEXT: value strlen/return 2
// CHECK-NEXT: value work/entry -1 [[W1]] 200
// CHECK-NEXT: value strlen/entry [[W1]]
// CHECK-NEXT: value strlen/return 2
// CHECK-NEXT: value getpid/return [[PID]]
// CHECK-NEXT: value strlen/entry [[W2:0x[0-9a-f]+]]
// CHECK-NEXT: value strlen/return 3
// CHECK-NEXT: value work/entry -2 [[W2]] 200
// CHECK-NEXT: value strlen/entry [[W2]]
// CHECK-NEXT: value strlen/return 3
// CHECK-NOT: value

// NODEBUG: declare work/entry args u64,ptr,u64 names -
// NODEBUG: declare work/return args u64 names ret

// PLAIN: pid
// PLAIN-NEXT: sum 615
