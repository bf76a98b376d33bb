// A self double lock on a default (non-error-checking) mutex: the second
// pthread_mutex_lock never returns.  Bound at the call, the monitor sees it
// first; the handler ends the program before it hangs.
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#include <vigil/runtime.h>

static void caught(const struct vigil_violation *v, void *ctx) {
  (void)ctx;
  fprintf(stderr, "caught before the deadlock: %s\n", v->explanation);
  _exit(3);
}

int main(void) {
  static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
  vigil_set_handler(caught, NULL);
  pthread_mutex_lock(&m);
  pthread_mutex_lock(&m); /* deadlock */
  puts("unreachable");
  return 0;
}
