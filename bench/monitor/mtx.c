/* object row: examples/mutex/mutex.bind on one mutex.  hand.h: the same
 * check by hand, its state next to the mutex, where the hooks fire. */
#include <pthread.h>
#include <stdlib.h>
#include "hand.h"
int main(int argc, char **argv) {
  long n = atol(argv[1]);
  struct { pthread_mutex_t m; int state; } o = {PTHREAD_MUTEX_INITIALIZER, MTX_UNLOCKED};
  for (long i = 0; i < n; i++) {
    if (pthread_mutex_lock(&o.m) == 0)
      MTX_STEP(o.state, MTX_LOCK);
    MTX_STEP(o.state, MTX_UNLOCK);
    pthread_mutex_unlock(&o.m);
  }
  MTX_FORGET(o.state);
  pthread_mutex_destroy(&o.m);
  return 0;
}
