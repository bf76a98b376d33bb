// explain=dot: a digraph per file, a cluster per alternative, dashed edges
// inside OR blocks, the site highlighted.
// RUN: %clang-vigil -fsyntax-only -Xclang -plugin-arg-vigil -Xclang explain=dot %s | FileCheck %s
#include <tesla.h>

int bound(void);
void a(void);
void b(void);

void f(void) {
  TESLA_WITHIN(bound, previously(call(a) || call(b)) || eventually(call(a)));
}

// CHECK: digraph
// CHECK: subgraph cluster_0_0 {
// CHECK: a0_0_3 [label="3: TESLA_ASSERTION_SITE\n[static,final]", style=filled
// CHECK: a0_0_1 -> a0_0_2 [style=dashed];
// CHECK: subgraph cluster_0_1 {
// CHECK: a0_1_1 [label="1: TESLA_ASSERTION_SITE
