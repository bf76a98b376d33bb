// explain=json: one object per file, stable keys.
// RUN: %clang-vigil -fsyntax-only -Xclang -plugin-arg-vigil -Xclang explain=json %s | FileCheck %s
#include <tesla.h>

int start(void);
int stop(void);
int lock(void *);

void f(void *l) {
  TESLA_GLOBAL(call(start), returnfrom(stop), strict(eventually(lock(l) == 0)));
}

// CHECK:      "assertions": [
// CHECK:          "captures": [
// CHECK-NEXT:       "l"
// CHECK:          "locality": "global",
// CHECK-NEXT:     "location": "{{.*}}json.c:10:3",
// CHECK-NEXT:     "mode": "strict",
// CHECK-NEXT:     "text": "TESLA_GLOBAL(call(start), returnfrom(stop), strict(eventually(lock(l) == 0)))"
// CHECK:        "file": "{{.*}}json.c"
