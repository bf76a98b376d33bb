// explain=json: one object per file, stable keys: each assertion's
// descriptor plus whether it was compiled here and its automata.
// RUN: %clang-vigil -fsyntax-only -Xclang -plugin-arg-vigil -Xclang explain=json %s | FileCheck %s
#include <tesla.h>

int start(void);
int stop(void);
int lock(void *);

void f(void *l) {
  TESLA_GLOBAL(call(start), returnfrom(stop), strict(eventually(lock(l) == 0)));
}

// CHECK:      "assertions": [
// CHECK:          "automata": [
// CHECK-NEXT:       {
// CHECK-NEXT:         "engine": "forward, table steps in the runtime",
// CHECK-NEXT:         "pattern": "SITE, lock(l) == 0",
// CHECK-NEXT:         "post_start": 1,
// CHECK-NEXT:         "states": [
// CHECK:                "flags": "initial,site-ok",
// CHECK:                "next": {
// CHECK-NEXT:             "2": 1
// CHECK:          "captures": [
// CHECK-NEXT:       "l"
// CHECK:          "compiled": true,
// CHECK-NEXT:     "free": [],
// CHECK-NEXT:     "kind": "assertion",
// CHECK-NEXT:     "locality": "global",
// CHECK-NEXT:     "location": "{{.*}}json.c:11:3",
// CHECK-NEXT:     "mode": "strict",
// CHECK:          "symbols": [
// CHECK:              "function": "lock",
// CHECK:              "kind": "return",
// CHECK:              "values": [
// CHECK:                  "kind": "capture",
// CHECK:                  "role": "arg",
// CHECK:                  "kind": "const",
// CHECK:                  "role": "return",
// CHECK:          "text": "TESLA_GLOBAL(call(start), returnfrom(stop), strict(eventually(lock(l) == 0)))"
// CHECK:        "file": "{{.*}}json.c"
