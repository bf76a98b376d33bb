/*
 * alloc.c — memory for captured values and temporal stores.
 *
 * Allocation happens only when an instance first needs a store or a store
 * grows (warm-up); steady state reuses it.  Per-thread memory is listed in
 * the thread's registry and released by a pthread key destructor when the
 * thread exits; global instances' memory lives as long as the process.
 * VIGIL_MEMORY_LIMIT (bytes, default 1 GiB) caps the total: past it, and
 * whenever malloc fails, vg_alloc returns NULL and the caller drops the
 * instance (counted in the statistics) instead of crashing.
 */
#include <pthread.h>
#include <stdlib.h>

#include "internal.h"

struct vg_block {
  struct vg_block *next;
  size_t size;
  /* payload follows, 16-byte aligned */
  uint64_t pad;
};

static pthread_key_t registry_key;
static pthread_once_t registry_once = PTHREAD_ONCE_INIT;
static atomic_size_t allocated;
size_t vg_memory_limit = (size_t)1 << 30;

_Thread_local int vg_thread_exited;
static _Thread_local struct vg_block *thread_blocks;

static void release_thread(void *p) {
  struct vg_block *b = p;
  vg_thread_exited = 1; /* events later in this thread's teardown are ignored */
  while (b) {
    struct vg_block *next = b->next;
    atomic_fetch_sub(&allocated, b->size);
    free(b);
    b = next;
  }
  thread_blocks = NULL;
}

static void make_key(void) { pthread_key_create(&registry_key, release_thread); }

void *vg_alloc(size_t size, int global) {
  size_t total = size + sizeof(struct vg_block);
  if (atomic_fetch_add(&allocated, total) + total > vg_memory_limit) {
    atomic_fetch_sub(&allocated, total);
    return NULL;
  }
  struct vg_block *b = calloc(1, total);
  if (!b) {
    atomic_fetch_sub(&allocated, total);
    return NULL;
  }
  b->size = total;
  if (!global) {
    pthread_once(&registry_once, make_key);
    b->next = thread_blocks;
    thread_blocks = b;
    pthread_setspecific(registry_key, thread_blocks);
  }
  return b + 1;
}
