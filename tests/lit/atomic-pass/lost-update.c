// End to end: a counter read and written back without a lock by two
// threads (RWW).  The plain build loses updates; built with --vigil-atomic
// the prevent mode (default) serialises every region: no update is lost;
// detect mode reports the violation as not prevented, with both threads,
// the accesses and the variable.  Whether two free-running threads overlap
// at all depends on the scheduler (under a loaded `make test` they often do
// not), so the detect run forces the interleaving with a handshake under a
// mutex (pairs under one held lock are never regions).
// RUN: %vigil-cc --vigil-atomic -O1 -g -pthread %s -o %t
// RUN: env VIGIL_ON_FAILURE=log %t 200000 2>%t.prevent | FileCheck --check-prefix=EXACT %s
// RUN: env VIGIL_ATOMIC_MODE=detect VIGIL_ON_FAILURE=log VIGIL_REPORT=%t.jsonl %t handshake 2>&1 | FileCheck --check-prefix=DETECT %s
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

/* The handshake waits on a condition variable, not in a spin loop: a loop
 * that waits for another thread's store orders the threads, and no region
 * spans it (AtomicWaits.cpp); a condition wait releases the lock and the
 * region stays. */
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int inside, written;

static void *local(void *arg) {
  (void)arg;
  long c = counter;
  pthread_mutex_lock(&m);
  inside = 1;
  pthread_cond_broadcast(&cv);
  while (!written)
    pthread_cond_wait(&cv, &m);
  pthread_mutex_unlock(&m);
  counter = c + 1;
  return 0;
}

static void *remote(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  while (!inside)
    pthread_cond_wait(&cv, &m);
  pthread_mutex_unlock(&m);
  counter = 100;
  pthread_mutex_lock(&m);
  written = 1;
  pthread_cond_broadcast(&cv);
  pthread_mutex_unlock(&m);
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1 && argv[1][0] == 'h') { /* handshake: remote write inside the region */
    pthread_t a, b;
    pthread_create(&a, 0, local, 0);
    pthread_create(&b, 0, remote, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    printf("counter %ld of 100\n", counter);
    return 0;
  }
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
// DETECT: first: read at {{.*}}lost-update.c:[[#@LINE-47]]:{{[0-9]+}}, thread
// DETECT: remote: write at {{.*}}lost-update.c:{{[0-9]+}}:{{[0-9]+}}, thread
// DETECT: second: write at {{.*}}lost-update.c:{{[0-9]+}}:{{[0-9]+}}, thread
// DETECT: verdict: not prevented
// DETECT: counter 1 of 100
// JSON: "pattern":"RWW"
