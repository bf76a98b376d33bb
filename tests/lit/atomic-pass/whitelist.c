// --vigil-atomic-whitelist=FILE: a variable or the FILE:LINE of a region's
// first access removes the region at link time (the format the runtime and
// train mode use); a malformed line fails the link with FILE:LINE.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf '# benign statistics\nhits\nwhitelist.c:%%d  # trained\n' 21 > %t/list
// RUN: env VIGIL_ATOMIC_STATIC_WHITELIST=%t/list VIGIL_ATOMIC_EXPLAIN=text %vigil-cc --vigil-atomic -O1 -g %s -o %t/prog | FileCheck %s
// RUN: %vigil-cc --vigil-atomic --vigil-atomic-whitelist=%t/list -O1 -g %s -o %t/prog
// RUN: printf 'hits\nwhitelist.c:\n' > %t/bad
// RUN: not %vigil-cc --vigil-atomic --vigil-atomic-whitelist=%t/bad -O1 %s -o %t/prog2 2>&1 | FileCheck --check-prefix=BAD %s
// RUN: printf 'two words\n' > %t/bad2
// RUN: not %vigil-cc --vigil-atomic --vigil-atomic-whitelist=%t/bad2 -O1 %s -o %t/prog2 2>&1 | FileCheck --check-prefix=BAD2 %s
// RUN: not %vigil-cc --vigil-atomic-whitelist=%t/list -O1 %s -o %t/prog2 2>&1 | FileCheck --check-prefix=ALONE %s
// RUN: not %vigil-cc --vigil-atomic=tsan -O1 %s -o %t/prog2 2>&1 | FileCheck --check-prefix=DETECTOR %s
long hits, misses, total;

void count(int hit) {
  if (hit)
    hits = hits + 1;
  else
    misses = misses + 1;
  total = total + 1;
}

int main(void) {
  count(1);
  return 0;
}

// CHECK: 1 atomic regions on 1 shared variables
// CHECK-NEXT: function count: 1 ARs
// CHECK-NEXT: `misses`
// BAD: vigil: error: {{.*}}bad:2: expected FILE:LINE with a line number above 0, found `whitelist.c:`
// BAD2: vigil: error: {{.*}}bad2:1: expected a variable name or FILE:LINE, found `two words`
// ALONE: --vigil-atomic-whitelist without --vigil-atomic
// DETECTOR: --vigil-atomic=tsan: expected
