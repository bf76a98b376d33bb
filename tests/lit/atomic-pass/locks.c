// A pair of accesses under one held lock is no atomic region; a pair that
// an unlock, a condition wait or a lock wrapper's unlock separates is one.
// RUN: %vigil-bin explain --atomic %s | FileCheck %s
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
int count, ready, hits;

static void lock(void) { pthread_mutex_lock(&m); }
static void unlock(void) { pthread_mutex_unlock(&m); }

void locked(void) {
  pthread_mutex_lock(&m);
  count = count + 1;
  pthread_mutex_unlock(&m);
}

void split(void) {
  pthread_mutex_lock(&m);
  int c = count;
  pthread_mutex_unlock(&m);
  pthread_mutex_lock(&m);
  count = c + 1;
  pthread_mutex_unlock(&m);
}

void waits(void) {
  pthread_mutex_lock(&m);
  int r = ready;
  pthread_cond_wait(&cv, &m);
  ready = r + 1;
  pthread_mutex_unlock(&m);
}

void wrapped(void) {
  lock();
  hits = hits + 1;
  unlock();
}

void unlocked(void) { hits = hits + 1; }

// CHECK: 3 atomic regions on 3 shared variables (2 pairs under a lock left out)
// CHECK-LABEL: function locked: 0 ARs, 1 pairs under a lock left out
// CHECK-LABEL: function split: 1 ARs
// CHECK-NEXT: `count`: read at {{.*}}:21:11 -> write at {{.*}}:24:9
// CHECK-LABEL: function waits: 1 ARs
// CHECK-NEXT: `ready`: read at {{.*}}:30:11 -> write at {{.*}}:32:9
// CHECK-LABEL: function wrapped: 0 ARs, 1 pairs under a lock left out
// CHECK-LABEL: function unlocked: 1 ARs
// CHECK-NEXT: `hits`: read at {{.*}}:42:30 -> write at {{.*}}:42:28
