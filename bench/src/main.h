/*
 * main.h — the skeleton main(), included at the end of every benchmark source
 * after examplecall() (see common.h for the command line and the output line).
 */
#ifndef VIGIL_BENCH_MAIN_H
#define VIGIL_BENCH_MAIN_H

/* ---- the skeleton ------------------------------------------------------------ */
static long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long)t.tv_sec * 1000000000L + t.tv_nsec;
}

struct bench_worker {
  pthread_t tid;
  long first, last;
  long t_start, t_end;
  pthread_barrier_t *start;
};

/* Each worker stamps the moment it leaves the start barrier and the moment it
 * finishes its bounds; the elapsed time is from the first start to the last
 * finish.  (Stamping in main() would be wrong on a machine with fewer cores
 * than threads: main may not run again until the workers are done.) */
static void *bench_thread(void *arg) {
  struct bench_worker *w = arg;
  pthread_barrier_wait(w->start);
  w->t_start = now_ns();
  for (long k = w->first; k < w->last; k++)
    examplecall((int)k);
  w->t_end = now_ns();
  return NULL;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 10000000L;
  int threads = argc > 2 ? atoi(argv[2]) : DEFAULT_THREADS;
  work_amount = argc > 3 ? atol(argv[3]) : 0;
#ifndef PERTHREAD
  threads = 1; /* global locality: a single thread */
#endif
  if (n < 0 || threads < 1 || threads > 64 || work_amount < 0) {
    fprintf(stderr, "usage: %s [bounds [threads [work]]]\n", argv[0]);
    return 2;
  }
#ifdef WORK_MEM
  work_array = calloc(WORK_WORDS, sizeof(int));
  if (!work_array) {
    perror("calloc");
    return 2;
  }
  for (unsigned long k = 0; k < WORK_WORDS; k += 1024)
    work_array[k] = 1; /* fault the pages in before timing */
#endif
  long t0, t1;
  if (threads == 1) {
    t0 = now_ns();
    for (long k = 0; k < n; k++)
      examplecall((int)k);
    t1 = now_ns();
  } else {
    struct bench_worker w[64];
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, (unsigned)threads + 1);
    for (int t = 0; t < threads; t++) {
      w[t].first = n * t / threads;
      w[t].last = n * (t + 1) / threads;
      w[t].start = &start;
      if (pthread_create(&w[t].tid, NULL, bench_thread, &w[t]) != 0) {
        perror("pthread_create");
        return 2;
      }
    }
    pthread_barrier_wait(&start);
    for (int t = 0; t < threads; t++)
      pthread_join(w[t].tid, NULL);
    pthread_barrier_destroy(&start);
    t0 = w[0].t_start;
    t1 = w[0].t_end;
    for (int t = 1; t < threads; t++) {
      if (w[t].t_start < t0)
        t0 = w[t].t_start;
      if (w[t].t_end > t1)
        t1 = w[t].t_end;
    }
  }
  printf("elapsed_ns %ld bounds %ld threads %d work %ld\n", t1 - t0, n, threads,
         work_amount);
  return 0;
}

#endif /* VIGIL_BENCH_MAIN_H */
