// A run as a Chrome / Perfetto trace: one process per producer, a slice per
// traced call (entry "B", return "E" with its value), nested calls nested.
// RUN: %vigil-cc -O0 -g --vigil-trace=outer,inner %s -o %t
// RUN: rm -rf %t.store
// RUN: %collect run --store %t.store --streams 1 '%t'
// RUN: vigil collect --store %t.store --export-trace %t.json
// RUN: %python -c "import json,sys; t=json.load(open(sys.argv[1]))['traceEvents']; print(sum(e['ph']=='B' for e in t), sum(e['ph']=='E' for e in t), [e['args'] for e in t if e['ph']=='E' and e['name']=='outer'][-1], [e['args']['name'] for e in t if e['ph']=='M'][0].split(' (')[0].endswith('export.c.tmp'))" %t.json | FileCheck %s
#include <stdio.h>

__attribute__((noinline)) int inner(int x) { return x * 2; }
__attribute__((noinline)) int outer(int x) { return inner(x) + 1; }
int main(void) {
  int s = 0;
  for (int i = 0; i < 10; i++)
    s += outer(i);
  printf("%d\n", s);
  return 0;
}
// CHECK: 20 20 {'ret': 19} True
