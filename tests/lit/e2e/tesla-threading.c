// Port of TESLA's Integration/threading.c, with the four threads TESLA had
// to comment out: each worker holds its own object, asserts (per thread)
// that it was held and will be released, and releases it.  A global
// assertion over the whole pool (keyed by the object) also wants every
// object that reached it released before the pool returns.
// RUN: %vigil-cc -O1 %s -o %t -lpthread
// RUN: %t ok 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ALGORITHM=history %t ok 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t skip-hold 2>&1 | FileCheck %s --check-prefix=HOLD
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ALGORITHM=history %t skip-hold 2>&1 | FileCheck %s --check-prefix=HOLD
// RUN: env VIGIL_ON_FAILURE=log %t skip-release 2>&1 | FileCheck %s --check-prefix=RELEASE
// RUN: env VIGIL_ON_FAILURE=log %t other-thread 2>&1 | FileCheck %s --check-prefix=OTHER
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <tesla-macros.h>

#define THREADS 4

struct object {
  int refcount;
};

static struct object objects[THREADS];
static int iterations = 2000;
static int bad_thread = -1;
static const char *mode = "ok";

static void hold(struct object *o) { __atomic_add_fetch(&o->refcount, 1, __ATOMIC_RELAXED); }
static void release(struct object *o) { __atomic_sub_fetch(&o->refcount, 1, __ATOMIC_RELAXED); }

void pool_run(void);

void worker(int index) {
  struct object *obj = objects + index;
  int bad = index == bad_thread;
  if (!(bad && !strcmp(mode, "skip-hold")))
    hold(obj);
  else
    fprintf(stderr, "thread %d skips hold\n", index);

  TESLA_WITHIN(worker, previously(call(hold(obj))));
  TESLA_WITHIN(worker, eventually(call(release(obj))));
  TESLA_GLOBAL(call(pool_run), returnfrom(pool_run), eventually(call(release(obj))));

  if (!(bad && !strcmp(mode, "skip-release")))
    release(obj);
  else
    fprintf(stderr, "thread %d skips release\n", index);
}

static void *thread_fn(void *indexp) {
  int index = *(int *)indexp;
  for (int i = 0; i < iterations; i++)
    worker(index);
  return indexp;
}

static pthread_barrier_t barrier;

/* other-thread: thread 1 holds object 3 and thread 3 works on it. */
static void *holder(void *p) {
  (void)p;
  hold(&objects[3]);
  pthread_barrier_wait(&barrier);
  pthread_barrier_wait(&barrier);
  return 0;
}

void pool_run(void) {
  int indices[THREADS];
  pthread_t threads[THREADS];
  for (int i = 0; i < THREADS; i++) {
    indices[i] = i;
    pthread_create(&threads[i], NULL, thread_fn, &indices[i]);
  }
  for (int i = 0; i < THREADS; i++)
    pthread_join(threads[i], NULL);
  fprintf(stderr, "joined\n");
}

int main(int argc, char *argv[]) {
  if (argc > 1)
    mode = argv[1];
  if (strcmp(mode, "ok")) {
    iterations = 1;
    bad_thread = 2;
  }
  if (!strcmp(mode, "other-thread")) {
    pthread_t t;
    pthread_barrier_init(&barrier, 0, 2);
    pthread_create(&t, 0, holder, 0);
    pthread_barrier_wait(&barrier);
    mode = "skip-hold";
    bad_thread = 3;
    fprintf(stderr, "held elsewhere\n");
    worker(3); /* this thread never held object 3 */
    pthread_barrier_wait(&barrier);
    pthread_join(t, 0);
  } else {
    pool_run();
  }
  fprintf(stderr, "done\n");
  return 0;
}
// OK: joined
// OK: done
//
// HOLD: thread 2 skips hold
// HOLD-NEXT: vigil: assertion failed at {{.*}}tesla-threading.c:{{[0-9]+}}:3
// HOLD: reason: required event call(hold(obj)) did not happen before the assertion site (missing-before-site)
// HOLD-NOT: assertion failed
// HOLD: done
//
// The per-thread report when the worker returns, then the global one when
// the pool returns.
// RELEASE: thread 2 skips release
// RELEASE-NEXT: vigil: assertion failed at {{.*}}tesla-threading.c:[[#LINE:]]:3
// RELEASE: (missing-after-site)
// RELEASE: event: call(release(obj))
// RELEASE: joined
// RELEASE-NEXT: vigil: assertion failed at {{.*}}tesla-threading.c:[[#LINE+1]]:3
// RELEASE: (missing-after-site)
// RELEASE: event: call(release(obj))
// RELEASE-NOT: assertion failed
// RELEASE: done
//
// OTHER: held elsewhere
// OTHER-NEXT: thread 3 skips hold
// OTHER-NEXT: vigil: assertion failed at {{.*}}tesla-threading.c:{{[0-9]+}}:3
// OTHER: (missing-before-site)
// OTHER-NOT: assertion failed
// OTHER: done
