// Top-level OR of sequences: the assertion fails only if no alternative
// holds, and is reported once, at the end of the bound.
// RUN: %vigil-cc -O1 %s -o %t
// RUN: %t 1 2>&1 | FileCheck %s --check-prefix=OK
// RUN: %t 2 2>&1 | FileCheck %s --check-prefix=OK
// RUN: env VIGIL_ON_FAILURE=log VIGIL_REPORT=%t.jsonl %t 0 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: FileCheck %s --check-prefix=JSON < %t.jsonl
// RUN: rm -f %t.jsonl
#include <stdio.h>
#include <stdlib.h>
#include <tesla.h>

void cached(void) {}
void fetched(void) {}
int serve(int how);

void reply(void) {
  TESLA_WITHIN(serve, previously(call(cached)) || previously(call(fetched)));
}

int serve(int how) {
  if (how == 1) cached();
  if (how == 2) fetched();
  reply();
  return 0;
}

int main(int argc, char **argv) {
  serve(atoi(argv[1]));
  puts("done");
  return 0;
}
// OK-NOT: vigil
// OK: done
// NONE: vigil: assertion failed
// NONE: alternative 1: previously(call(cached))
// NONE: (missing-before-site)
// NONE: alternative 2: previously(call(fetched))
// NONE: (missing-before-site)
// NONE-NOT: vigil: assertion failed
// NONE: done
// JSON: "reason":"no-alternative-held"
// JSON-SAME: "alternatives":[{"alternative":1,"reason":"missing-before-site"
