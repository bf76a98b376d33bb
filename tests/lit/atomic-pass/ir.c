// What the pass inserts, on the IR: begin before a region's first access
// (with the value a first write stores; a first read of an aligned scalar
// is made by the runtime, begin_read, and the program's load is gone), end
// after each second access (a second read of an aligned scalar is made by
// the runtime, end_read), clear before every return, and the inline
// filter check (a relaxed byte load, the runtime call out of line) around
// an access of another function that may touch the variable: before a
// write, which becomes a seq_cst exchange checked again after it (a
// seq_cst byte load, __vigil_access_written with the old and new values);
// after a read (which the runtime reads again when an AR was open,
// access_read); nothing around
// unshared accesses.  A packed (unaligned) field keeps the plain begin and
// the plain store with the first check only.  With
// --vigil-atomic=watchpoints there are no checks and the program says so.
// RUN: %clang-vigil -flto=full -O1 -g -c %s -o %t.bc
// RUN: env VIGIL_ATOMIC=checks opt -load-pass-plugin=%vigil-pass -passes=vigil-instrument %t.bc -S -o - | FileCheck %s
// RUN: env VIGIL_ATOMIC=checks opt -load-pass-plugin=%vigil-pass -passes=vigil-instrument %t.bc -S -o - | FileCheck --check-prefix=CTOR %s
// RUN: env VIGIL_ATOMIC=watchpoints opt -load-pass-plugin=%vigil-pass -passes=vigil-instrument %t.bc -S -o - | FileCheck --check-prefix=WATCH %s
// RUN: not env VIGIL_ATOMIC=tsan opt -load-pass-plugin=%vigil-pass -passes=vigil-instrument %t.bc -disable-output 2>&1 | FileCheck --check-prefix=BAD %s
long counter;
void *slot;

void bump(void) { counter = counter + 1; }

void external(void);
void *publish(void *p) {
  slot = p;
  external();
  return slot;
}

long peek(void) { return counter; }

void poke(long v) { counter = v; }

struct __attribute__((packed)) Packed {
  char c;
  long v;
} pk;
void pk_bump(void) { pk.v = pk.v + 1; }
void pk_set(long v) { pk.v = v; }

int local(int n) {
  int a[4] = {n, n, n, n};
  a[1] = a[1] + 1;
  return a[1];
}

// CHECK-LABEL: define {{.*}}void @bump()
// CHECK-NOT: load i64, ptr @counter
// CHECK: %[[R:.*]] = call i64 @__vigil_ar_begin_read(i32 [[AR:[0-9]+]], ptr @counter, i32 8)
// CHECK-NOT: load i64, ptr @counter
// CHECK: add nsw i64 %[[R]], 1
// CHECK: store i64 {{.*}}, ptr @counter
// CHECK-NEXT: call void @__vigil_ar_end(i32 {{[0-9]+}}, ptr @counter)
// CHECK: call void @__vigil_ar_clear(i32 [[AR]], i32 1)
// CHECK-NEXT: ret void

// CHECK-LABEL: define {{.*}} @publish(ptr
// CHECK: %[[V:.*]] = ptrtoint ptr %[[P:.*]] to i64
// CHECK-NEXT: call void @__vigil_ar_begin(i32 {{[0-9]+}}, ptr @slot, i64 %[[V]])
// CHECK-NEXT: store ptr %[[P]], ptr @slot
// CHECK: call void @external()
// CHECK-NOT: load ptr, ptr @slot
// CHECK: %[[B:.*]] = call i64 @__vigil_ar_end_read(i32 {{[0-9]+}}, ptr @slot, i32 8)
// CHECK-NEXT: inttoptr i64 %[[B]] to ptr
// CHECK-NOT: @__vigil_ar_end(

// A read is bracketed by two loads of its bucket's word: an open count or a changed
// word (an AR that began and ended in between) sends it to the runtime.
// CHECK-LABEL: define {{.*}}i64 @peek()
// CHECK: lshr i64 ptrtoint (ptr @counter to i64), 3
// CHECK-NEXT: and i64 %{{.*}}, 4095
// CHECK-NEXT: %[[W:.*]] = getelementptr inbounds [4096 x i32], ptr @__vigil_atomic_filter, i64 0
// CHECK-NEXT: %[[W1:.*]] = load atomic i32, ptr %[[W]] acquire, align 4
// CHECK-NEXT: %[[X:.*]] = load i64, ptr @counter
// CHECK-NEXT: fence acquire
// CHECK-NEXT: %[[W2:.*]] = load atomic i32, ptr %[[W]] monotonic, align 4
// CHECK-NEXT: %[[D:.*]] = xor i32 %[[W1]], %[[W2]]
// CHECK-NEXT: %[[C:.*]] = and i32 %[[W1]], 255
// CHECK-NEXT: %[[M:.*]] = or i32 %[[D]], %[[C]]
// CHECK-NEXT: %[[B:.*]] = icmp ne i32 %[[M]], 0
// CHECK-NEXT: br i1 %[[B]], {{.*}}, !prof
// CHECK-NOT: call void @__vigil_access(
// CHECK: %[[Y:.*]] = call i64 @__vigil_access_read(ptr @counter, i32 {{[0-9]+}}, i32 8)
// CHECK: phi i64 [ %[[X]], %{{.*}} ], [ %[[Y]], %{{.*}} ]

// A write loads the word's count byte alone (x86: little-endian, the first byte).
// CHECK-LABEL: define {{.*}}void @poke(
// CHECK: %[[PW:.*]] = getelementptr inbounds [4096 x i32], ptr @__vigil_atomic_filter
// CHECK-NEXT: load atomic i8, ptr %[[PW]] monotonic, align 1
// CHECK: call void @__vigil_access(ptr @counter, i32 [[SITE:[0-9]+]])
// CHECK: %[[OLD:.*]] = atomicrmw xchg ptr @counter, i64 %[[NEW:.*]] seq_cst, align 8
// CHECK-NEXT: %[[PW2:.*]] = getelementptr inbounds [4096 x i32], ptr @__vigil_atomic_filter
// CHECK-NEXT: load atomic i8, ptr %[[PW2]] seq_cst, align 1
// CHECK: br i1 {{.*}}, !prof
// CHECK: call void @__vigil_access_written(ptr @counter, i32 [[SITE]], i64 %[[OLD]], i64 %[[NEW]])
// CHECK-NOT: store i64
// CHECK: ret void

// CHECK-LABEL: define {{.*}}void @pk_bump()
// CHECK: call void @__vigil_ar_begin(i32 {{[0-9]+}}, ptr getelementptr inbounds (i8, ptr @pk, i64 1), i64 0)
// CHECK-NEXT: load i64, ptr getelementptr inbounds (i8, ptr @pk, i64 1), align 1

// CHECK-LABEL: define {{.*}}void @pk_set(
// CHECK: call void @__vigil_access(
// CHECK: store i64 %{{.*}}, ptr getelementptr inbounds (i8, ptr @pk, i64 1), align 1
// CHECK-NOT: __vigil_access
// CHECK: ret void

// CHECK-LABEL: define {{.*}}i32 @local(
// CHECK-NOT: __vigil
// CHECK: ret i32

// CHECK: @__vigil_atomic_register(ptr @vigil.atomic.program)
// CTOR: @llvm.global_ctors = {{.*}} i32 101, ptr @__vigil_atomic_ctor

// WATCH-NOT: __vigil_access
// WATCH: @vigil.atomic.program = private constant { i32, i32, i32, i32, i32, i32, ptr, ptr, ptr, ptr } { i32 5, i32 0,
// WATCH: call i64 @__vigil_ar_begin_read
// WATCH-NOT: atomicrmw

// BAD: vigil: error: --vigil-atomic: unknown detector `tsan`; expected checks or watchpoints
