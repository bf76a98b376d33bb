// The traced program of the collector's lit tests: K threads each call
// work(i, thread) N times (two events per call: entry and return).
//   workers N K [pace] [fork]
// pace: sleep 500 us every 128 calls (300000 calls: about 1.3 s);
// fork: the process forks first, and both streams run the threads.
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) long work(long i, long t) { return t; }

static long n;
static int pace;

static void *run(void *a) {
  struct timespec pause = {0, 500000};
  for (long i = 0; i < n; i++) {
    work(i, (long)a);
    if (pace && i % 128 == 0)
      nanosleep(&pause, 0);
  }
  return 0;
}

int main(int argc, char **argv) {
  n = atol(argv[1]);
  int k = atoi(argv[2]), forked = 0;
  for (int a = 3; a < argc; a++) {
    pace |= !strcmp(argv[a], "pace");
    forked |= !strcmp(argv[a], "fork");
  }
  pid_t child = forked ? fork() : 0;
  pthread_t t[64];
  for (long i = 0; i < k; i++)
    pthread_create(&t[i], 0, run, (void *)i);
  for (int i = 0; i < k; i++)
    pthread_join(t[i], 0);
  if (child > 0) {
    int st;
    waitpid(child, &st, 0);
  }
  return 0;
}
