// Synchronisation memory and memory no other thread can see have no atomic
// regions: mutexes and the fields next to them are told apart, flags
// accessed atomically or volatile anywhere are whitelisted, thread-locals,
// constants and locals that do not escape are not shared; a local handed
// to a thread is.
// RUN: %vigil-bin explain --atomic %s | FileCheck %s
#include <pthread.h>

struct queue {
  pthread_mutex_t lock;
  int length;
};
struct queue q = {PTHREAD_MUTEX_INITIALIZER, 0};
int stop;               // accessed atomically elsewhere
volatile int flag;      // volatile: a hand-made flag
_Thread_local int mine;
const int limit = 10;

void *worker(void *arg) {
  int *box = arg;
  *box = *box + 1;      // the local of spawn(), handed to this thread
  return 0;
}

void touch(void) {
  pthread_mutex_lock(&q.lock);
  pthread_mutex_unlock(&q.lock);
  q.length = q.length + 1;
  if (__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) return;
  stop = stop + 1;
  flag = flag + 1;
  mine = mine + 1;
  int local = 0;
  local = local + limit;
  (void)local;
}

int spawn(void) {
  int box = 0;
  pthread_t t;
  pthread_create(&t, 0, worker, &box);
  pthread_join(t, 0);
  return box;
}

// CHECK: 2 atomic regions on 2 shared variables
// CHECK-LABEL: function worker: 1 ARs
// CHECK-NEXT: `*{{arg|box}}`: read at {{.*}}:21:10 -> write at {{.*}}:21:8
// CHECK-LABEL: function touch: 1 ARs
// CHECK-NEXT: `q.length`: read
// CHECK-NOT: AR
// A local handed to a thread and read after the join: the join orders the
// threads, so no region spans it (the paper's Figure 5, a required
// violation, would otherwise be reported).
// CHECK-NOT: function spawn
