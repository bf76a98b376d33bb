// The C API: a custom handler receives each violation; totals are readable.
// RUN: %vigil-cc -O1 %s -o %t
// RUN: env VIGIL_ON_FAILURE=log %t 2>&1 | FileCheck %s
#include <stdio.h>
#include <tesla.h>
#include <vigil/runtime.h>

void check(void) {}
int entry(int ok);
void site(void) { TESLA_WITHIN(entry, previously(call(check))); }
int entry(int ok) { if (ok) check(); site(); return 0; }

static void on_violation(const struct vigil_violation *v, void *ctx) {
  ++*(int *)ctx;
  fprintf(stderr, "handler: %s %s event=%s\n", v->assertion, v->reason, v->event);
}

int main(void) {
  int n = 0;
  vigil_set_handler(on_violation, &n);
  entry(1);
  entry(0);
  entry(1);
  struct vigil_totals t;
  vigil_get_totals(&t);
  fprintf(stderr, "calls=%d instances=%llu passes=%llu failures=%llu\n", n,
          (unsigned long long)t.instances, (unsigned long long)t.passes,
          (unsigned long long)t.failures);
  return 0;
}
// CHECK-NOT: vigil: assertion failed
// CHECK: handler: {{.*}}handler.c:{{[0-9]+}}:19 missing-before-site event=call(check)
// CHECK: calls=1 instances=3 passes=2 failures=1
