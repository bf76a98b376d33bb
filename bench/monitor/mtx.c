#include <pthread.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  long n = atol(argv[1]);
  pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
  for (long i = 0; i < n; i++) { pthread_mutex_lock(&m); pthread_mutex_unlock(&m); }
  pthread_mutex_destroy(&m);
  return 0;
}
