// A loop that waits for another thread's store (its exit decided by an
// atomic or volatile load) orders the threads as a barrier does: no region
// spans it, inline or in a called wrapper.  A loop on an exchange is a lock
// acquire, and a pair across it stays a region (`tmp = x; lock; x = tmp+1`).
// RUN: %vigil-bin explain --atomic %s | FileCheck %s
int arrived, ready, lk;
volatile int go;
int shared_obj, counter, total;

static void spin_until(int *var, int value) {
  while (__atomic_load_n(var, __ATOMIC_ACQUIRE) < value)
    ;
}

__attribute__((noinline)) void barrier_wrapped(int n) {
  __atomic_add_fetch(&arrived, 1, __ATOMIC_ACQ_REL);
  spin_until(&arrived, n);
}

int round_inline(int n) {
  int a = shared_obj;
  __atomic_add_fetch(&arrived, 1, __ATOMIC_ACQ_REL);
  spin_until(&arrived, n);
  return a + shared_obj;
}

int round_called(int n) {
  int a = counter;
  barrier_wrapped(n);
  return a + counter;
}

int volatile_flag(void) {
  int a = total;
  while (!go)
    ;
  return a + total;
}

void spin_lock_pair(void) {
  int t = counter;
  while (__atomic_exchange_n(&lk, 1, __ATOMIC_ACQUIRE))
    ;
  counter = t + 1;
  __atomic_store_n(&lk, 0, __ATOMIC_RELEASE);
}

// CHECK: 1 atomic regions on 1 shared variables
// CHECK-NOT: function round_inline
// CHECK-NOT: function round_called
// CHECK-NOT: function volatile_flag
// CHECK-LABEL: function spin_lock_pair: 1 ARs
// CHECK-NEXT: `counter`: read at {{.*}}:41:11 -> write at {{.*}}:44:11
