/*
 * Correct program (no atomicity violation): a lock-free single-producer
 * single-consumer ring buffer.  head/tail are C11 atomics (release/acquire);
 * the slots are plain memory published by the release store of tail.  The
 * consumer checks it receives 0, 1, 2, ... in order.  Exit 0 on success.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>

#define SIZE 1024 /* power of two */
#define COUNT 2000000L

static struct {
  _Alignas(64) atomic_ulong head; /* next slot to read  (consumer) */
  _Alignas(64) atomic_ulong tail; /* next slot to write (producer) */
  _Alignas(64) long slot[SIZE];
} ring;

static void *producer(void *arg) {
  (void)arg;
  for (long i = 0; i < COUNT; i++) {
    unsigned long t = atomic_load_explicit(&ring.tail, memory_order_relaxed);
    while (t - atomic_load_explicit(&ring.head, memory_order_acquire) == SIZE) sched_yield();
    ring.slot[t % SIZE] = i;
    atomic_store_explicit(&ring.tail, t + 1, memory_order_release);
  }
  return NULL;
}

int main(void) {
  pthread_t p;
  pthread_create(&p, NULL, producer, NULL);
  long expect = 0, bad = 0;
  while (expect < COUNT) {
    unsigned long h = atomic_load_explicit(&ring.head, memory_order_relaxed);
    unsigned long t;
    while ((t = atomic_load_explicit(&ring.tail, memory_order_acquire)) == h) sched_yield();
    for (; h != t; h++) {
      if (ring.slot[h % SIZE] != expect) bad++;
      expect++;
    }
    atomic_store_explicit(&ring.head, h, memory_order_release);
  }
  pthread_join(p, NULL);
  if (bad) {
    fprintf(stderr, "spsc_ring: %ld items out of order or corrupted\n", bad);
    return 1;
  }
  return 0;
}
