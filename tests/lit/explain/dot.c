// explain=dot: a digraph per file, a cluster per alternative holding its
// DFA: states (initial bold, final doubled), transitions labelled with their
// symbol, site transitions highlighted.
// RUN: %clang-vigil -fsyntax-only -Xclang -plugin-arg-vigil -Xclang explain=dot %s | FileCheck %s
#include <tesla.h>

int bound(void);
void a(void);
void b(void);

void f(void) {
  TESLA_WITHIN(bound, previously(call(a) || call(b)) || eventually(call(a)));
}

// CHECK:      digraph "{{.*}}dot.c" {
// CHECK:        subgraph cluster_0_0 {
// CHECK-NEXT:     label="{{.*}}dot.c:12:3 alternative 0 (perthread, guideline, forward, inline fast path)\n(call(a) || call(b)), SITE";
// CHECK-NEXT:     a0_0_0 [label="s0\n[initial]", style=bold];
// CHECK:          a0_0_3 [label="s3\n[past-site,final]", peripheries=2];
// CHECK:          a0_0_0 -> a0_0_1 [label="3: call(a)"];
// CHECK-NEXT:     a0_0_0 -> a0_0_2 [label="4: call(b)"];
// CHECK-NEXT:     a0_0_1 -> a0_0_3 [label="2: TESLA_ASSERTION_SITE", color=orange, penwidth=2];
// CHECK:        subgraph cluster_0_1 {
// CHECK-NEXT:     label="{{.*}}dot.c:12:3 alternative 1 (perthread, guideline, forward, inline fast path)\nSITE, call(a)";
// CHECK-NEXT:     a0_1_0 [label="s0\n[initial,site-ok]", style=bold];
// CHECK:          a0_1_0 -> a0_1_1 [label="2: TESLA_ASSERTION_SITE", color=orange, penwidth=2];
// CHECK:          a0_1_1 -> a0_1_3 [label="3: call(a)"];
// CHECK:      }
