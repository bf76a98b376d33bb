// End to end: a counter read and written back without a lock by two
// threads (RWW).  The plain build loses updates; built with --vigil-atomic
// the prevent mode (default) serialises every region: no update is lost;
// detect mode reports the violation as not prevented, with both threads,
// the accesses and the variable; the watchpoint build gives the same count.
// RUN: %vigil-cc --vigil-atomic -O1 -g -pthread %s -o %t
// RUN: env VIGIL_ON_FAILURE=log %t 200000 2>%t.prevent | FileCheck --check-prefix=EXACT %s
// RUN: env VIGIL_ATOMIC_MODE=detect VIGIL_ON_FAILURE=log VIGIL_REPORT=%t.jsonl %t 200000 2>&1 | FileCheck --check-prefix=DETECT %s
// RUN: FileCheck --check-prefix=JSON %s < %t.jsonl
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

long counter;
static long rounds;

static void *worker(void *arg) {
  (void)arg;
  for (long i = 0; i < rounds; i++) {
    long c = counter;
    __asm__ volatile("" ::: "memory"); /* the work between read and write */
    counter = c + 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  rounds = argc > 1 ? atol(argv[1]) : 100000;
  pthread_t t[2];
  for (int i = 0; i < 2; i++)
    pthread_create(&t[i], 0, worker, 0);
  for (int i = 0; i < 2; i++)
    pthread_join(t[i], 0);
  printf("counter %ld of %ld\n", counter, 2 * rounds);
  return 0;
}

// EXACT: counter 400000 of 400000
// DETECT: vigil: atomicity violation (RWW) on counter
// DETECT: first: read at {{.*}}lost-update.c:20:14, thread
// DETECT: remote: write at {{.*}}lost-update.c:22:13, thread
// DETECT: second: write at {{.*}}lost-update.c:22:13, thread
// DETECT: verdict: not prevented
// DETECT: counter {{[0-9]+}} of 400000
// JSON: "pattern":"RWW"
