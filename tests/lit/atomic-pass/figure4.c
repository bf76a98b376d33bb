// The paper's Figures 1, 3 and 4: which pairs of accesses become atomic
// regions, with control flow and overlapping regions.
// RUN: %vigil-bin explain --atomic %s | FileCheck %s
// RUN: %vigil-bin explain --atomic --format json %s | FileCheck --check-prefix=JSON %s
#include <stdlib.h>

int shared, tmp;
int shared1, shared2;
void *shared_ptr;

// Figure 4: the read in the condition pairs with the write and the read
// after the if (when it is not taken); the write pairs with that read.
void figure4(void) {
  if (shared)
    shared = 0;
  tmp = shared;
}

// Figure 3: two overlapping regions on two variables.
void figure3(void) {
  int t1 = shared1;
  int t2 = shared2;
  t1 = t1 + 1;
  t2 = t2 - 1;
  shared1 = t1;
  shared2 = t2;
}

// Figure 1 (Firefox 225525).
void figure1(void) {
  if (!shared_ptr)
    shared_ptr = malloc(16);
}

// CHECK: 5 atomic regions on 4 shared variables
// CHECK-LABEL: function figure4: 2 ARs
// CHECK-NEXT: AR {{[0-9]+}} `shared`: read at {{.*}}figure4.c:14:7 -> write at {{.*}}figure4.c:15:12 read at {{.*}}figure4.c:16:9  (watch remote writes)
// CHECK-NEXT: AR {{[0-9]+}} `shared`: write at {{.*}}figure4.c:15:12 -> read at {{.*}}figure4.c:16:9  (watch remote writes)
// CHECK-LABEL: function figure3: 2 ARs
// CHECK-NEXT: `shared1`: read at {{.*}}:21:12 -> write at {{.*}}:25:11
// CHECK-NEXT: `shared2`: read at {{.*}}:22:12 -> write at {{.*}}:26:11
// CHECK-LABEL: function figure1: 1 ARs
// CHECK-NEXT: `shared_ptr`: read at {{.*}}:31:8 -> write at {{.*}}:32:16  (watch remote writes)

// JSON: "function": "figure4"
// JSON: "ends": [
// JSON-NEXT: {
// JSON-NEXT: "kind": "write",
// JSON-NEXT: "location": "{{.*}}figure4.c:15:12"
// JSON: "first": {
// JSON-NEXT: "kind": "read",
// JSON-NEXT: "location": "{{.*}}figure4.c:14:7"
// JSON: "variable": "shared",
// JSON-NEXT: "watch": "write"
// JSON: "regions": 5,
// JSON-NEXT: "variables": [
// JSON-NEXT: "shared",
