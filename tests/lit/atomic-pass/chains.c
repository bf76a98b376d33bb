// Three things the pass does about where regions end:
//  - later_kinds: `n += 1` after a read of n is R->R then R->W; the first
//    region says its chain goes on to write (explain's "then ... it", JSON
//    "later"), which is what makes the runtime hold a writer at its first read;
//  - a clear on the edge after which a region can no longer end
//    (`x = 0; note(); if (c) x = 1;` when c is false);
//  - a loop whose first test is constant does not let an access before the
//    loop pair with one after it across the pthread_join in its body.
// RUN: %vigil-bin explain --atomic %s | FileCheck %s
// RUN: %vigil-bin explain --atomic -f json %s | FileCheck --check-prefix=JSON %s
// RUN: %clang-vigil -flto=full -O1 -g -c %s -o %t.bc
// RUN: env VIGIL_ATOMIC=checks opt -load-pass-plugin=%vigil-pass -passes=vigil-instrument %t.bc -S -o - | FileCheck --check-prefix=IR %s
#include <pthread.h>
long n, x, lifetime;

void note(void);
long add(long k) {
  if (n > 100)
    return 0;
  note();
  n += k;
  return 1;
}

void maybe(int c) {
  x = 0;
  note();
  if (c)
    x = 1;
}

static void *w(void *a) { return a; }
int run(void) {
  lifetime = 1;
  pthread_t th[4];
  for (int t = 0; t < 4; t++) pthread_create(&th[t], 0, w, 0);
  for (int t = 0; t < 4; t++) pthread_join(th[t], 0);
  return lifetime > 0;
}

// CHECK: function add: 2 ARs
// CHECK-NEXT: `n`: read at {{.*}}chains.c:18:{{[0-9]+}} -> read at {{.*}}chains.c:21:{{[0-9]+}}  (watch remote writes; then read-writes it)
// CHECK-NEXT: `n`: read at {{.*}}chains.c:21:{{[0-9]+}} -> write at {{.*}}chains.c:21:{{[0-9]+}}  (watch remote writes)
// CHECK: function maybe: 1 ARs
// CHECK-NOT: `lifetime`
// JSON: "later": "read-write"
// IR-LABEL: define {{.*}}void @maybe(
// IR: call void @__vigil_ar_begin(i32 [[AR:[0-9]+]], ptr @x
// the edge where c is false, then the return
// IR: call void @__vigil_ar_clear(i32 [[AR]], i32 1)
// IR: call void @__vigil_ar_clear(i32 [[AR]], i32 1)
// IR: ret void
