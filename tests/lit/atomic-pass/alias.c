// "The same variable" is must-alias, not the same name: accesses through one
// pointer pair up and are named from the debug info; two pointers that may
// differ do not; a pointer that changes in a loop pairs nothing across
// iterations; neither do a spin-wait's reads.
// RUN: %vigil-bin explain --atomic %s | FileCheck %s
struct stats {
  long requests, bytes;
};
struct stats global_stats;
struct node {
  struct node *next;
  int value;
};
struct node *head;
int flag, counter;

void account(struct stats *s, long n) {
  s->requests = s->requests + 1;
  s->bytes += n;
}

void two(struct stats *a, struct stats *b) {
  long r = a->requests;
  b->requests = r + 1;
}

void fields(void) { global_stats.bytes = global_stats.bytes * 2; }

int walk(void) {
  int sum = 0;
  for (struct node *n = head; n; n = n->next)
    sum += n->value;
  return sum;
}

void spin(void) {
  while (!flag)
    ;
}

void loop(int n) {
  for (int i = 0; i < n; i++)
    counter = counter + 1;
}

void caller(void) {
  account(&global_stats, 10);
  two(&global_stats, &global_stats);
}

// CHECK-LABEL: function account: 2 ARs
// CHECK-NEXT: `s->requests`: read at {{.*}}:18:20 -> write at {{.*}}:18:15
// CHECK-NEXT: `s->bytes`: read at {{.*}}:19:12 -> write at {{.*}}:19:12
// CHECK-LABEL: function fields: 1 ARs
// CHECK-NEXT: `global_stats.bytes`: read
// CHECK-NOT: function two
// CHECK-NOT: function walk
// CHECK-NOT: function spin
// CHECK-LABEL: function loop: 1 ARs
// CHECK-NEXT: `counter`: read at {{.*}}:43:15 -> write at {{.*}}:43:13
// CHECK-NOT: AR
