// Many objects: the per-object table grows, forgets (backward-shift
// deletion) and stays exact under four threads working on disjoint sets of
// mutexes that share the table's stripes.
// RUN: %vigil-cc --vigil-monitor=%root/examples/mutex/mutex.bind -O2 %s -o %t -lpthread
// RUN: env VIGIL_ON_FAILURE=log VIGIL_STATS=1 %t 2>&1 | FileCheck %s
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define N 20000
#define THREADS 4
static pthread_mutex_t *mutexes;

void *work(void *arg) {
  long part = (long)arg;
  unsigned seed = (unsigned)part + 1;
  for (int round = 0; round < 3; round++) {
    for (int i = part; i < N; i += THREADS) {
      pthread_mutex_lock(&mutexes[i]);
      if (rand_r(&seed) % 2)
        pthread_mutex_trylock(&mutexes[i]); /* EBUSY: not a lock */
      pthread_mutex_unlock(&mutexes[i]);
    }
    /* forget a third of them, and make them anew */
    for (int i = part; i < N; i += THREADS)
      if (i % 3 == round) {
        pthread_mutex_destroy(&mutexes[i]);
        pthread_mutex_init(&mutexes[i], NULL);
      }
  }
  return NULL;
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  mutexes = calloc(N, sizeof *mutexes);
  for (int i = 0; i < N; i++)
    pthread_mutex_init(&mutexes[i], NULL);
  pthread_t t[THREADS];
  for (long i = 0; i < THREADS; i++)
    pthread_create(&t[i], NULL, work, (void *)i);
  for (int i = 0; i < THREADS; i++)
    pthread_join(t[i], NULL);
  puts("phase 2");
  /* every instance is still found: one locked mutex destroyed, one
   * unlocked mutex unlocked */
  printf("locked %p\n", (void *)&mutexes[12345]);
  pthread_mutex_lock(&mutexes[12345]);
  pthread_mutex_destroy(&mutexes[12345]);
  printf("unlocked %p\n", (void *)&mutexes[777]);
  pthread_mutex_unlock(&mutexes[777]);
  puts("done");
  return 0;
}
// CHECK-NOT: vigil: monitor violation
// CHECK: phase 2
// CHECK-NEXT: locked [[A:0x[0-9a-f]+]]
// CHECK-NEXT: vigil: monitor violation: mutex
// CHECK: reason:{{ +}}the instance was forgotten in state locked, which is not final (not-final)
// CHECK: values:{{ +}}key = [[A]]
// CHECK: unlocked [[B:0x[0-9a-f]+]]
// CHECK-NEXT: vigil: monitor violation: mutex
// CHECK: reason:{{ +}}event unlock is not allowed in state unlocked (monitor-invalid-event)
// CHECK: values:{{ +}}key = [[B]]
// CHECK-NOT: vigil: monitor violation
// CHECK: done
// 3 rounds x 20000 x (lock + unlock) + 20000 destroys; then lock, destroy, unlock.
// CHECK: mutex (mutex.bind){{ +}}140003{{ +}}2{{ +}}0
