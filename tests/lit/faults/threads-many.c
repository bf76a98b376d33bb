// 10 000 threads created and joined one after another, then 64 running at
// once, each inside a per-thread bound (and the global bound around all of
// them): every bound passes, nothing is dropped, and the runtime's memory is
// released when a thread exits: RSS after 10 000 threads is within 2 MiB of
// RSS after the first 1 000 (docs/faults.md, "Many threads").
// RUN: %vigil-cc -O1 %s -o %t -lpthread
// RUN: env VIGIL_STATS=1 %t 2>&1 | FileCheck %s
// A thread's store (4-8 KiB here) goes back to the memory budget when the
// thread exits: 1 MiB is enough for 10 064 threads, 64 of them alive at once
// (kept, the stores would need some 50 MiB).
// RUN: env VIGIL_STATS=1 VIGIL_MEMORY_LIMIT=1M %t 2>&1 | FileCheck %s
// With 64 KiB the 64 threads alive together cannot all have a store: the
// instances that get none are dropped and counted, none fails.
// RUN: env VIGIL_STATS=1 VIGIL_MEMORY_LIMIT=64K %t 2>&1 | FileCheck %s --check-prefix=TIGHT
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <tesla.h>
#include <vigil/runtime.h>

void authorise(int who) { (void)who; }
int request(int who);
void run(void);
void handle(int who) {
  TESLA_WITHIN(request, previously(call(authorise(who))));
}
void commit(void) { TESLA_GLOBAL(call(run), returnfrom(run), previously(call(authorise))); }

int request(int who) {
  authorise(who);
  handle(who);
  return 0;
}

static pthread_barrier_t all64;
static int together;

static void *worker(void *p) {
  int who = (int)(long)p;
  for (int i = 0; i < 4; i++) {
    request(who + i);
    if (i == 0 && together) /* the 64 threads are all alive, each with its store */
      pthread_barrier_wait(&all64);
  }
  return 0;
}

static long rss_kib(void) {
  long pages = 0, resident = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (!f || fscanf(f, "%ld %ld", &pages, &resident) != 2)
    abort();
  fclose(f);
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static long after_1000, after_10000;

void run(void) {
  for (long i = 0; i < 10000; i++) {
    pthread_t t;
    if (pthread_create(&t, 0, worker, (void *)i))
      abort();
    pthread_join(t, 0);
    if (i == 999)
      after_1000 = rss_kib();
  }
  after_10000 = rss_kib();
  pthread_t t[64];
  pthread_barrier_init(&all64, 0, 64);
  together = 1;
  for (long i = 0; i < 64; i++)
    if (pthread_create(&t[i], 0, worker, (void *)i))
      abort();
  for (int i = 0; i < 64; i++)
    pthread_join(t[i], 0);
  authorise(-1);
  commit();
}

int main(void) {
  run();
  struct vigil_totals tot;
  vigil_get_totals(&tot);
  long growth = after_10000 - after_1000;
  fprintf(stderr, "rss after 1000 threads: %ld KiB, after 10000: %ld KiB, growth %ld KiB\n",
          after_1000, after_10000, growth);
  fprintf(stderr, "flat: %s\n", growth <= 2048 ? "yes" : "NO");
  fprintf(stderr, "instances %llu passes %llu failures %llu dropped %llu\n",
          (unsigned long long)tot.instances, (unsigned long long)tot.passes,
          (unsigned long long)tot.failures, (unsigned long long)tot.dropped);
  return 0;
}
// CHECK-NOT: assertion failed
// CHECK: rss after 1000 threads: {{[0-9]+}} KiB, after 10000: {{[0-9]+}} KiB, growth {{-?[0-9]+}} KiB
// CHECK-NEXT: flat: yes
// (10 064 threads x 4 requests, and the one global bound)
// CHECK-NEXT: instances 40257 passes 40257 failures 0 dropped 0
// CHECK: vigil: statistics (2 assertions)
// CHECK-DAG: threads-many.c:{{[0-9]+}}:3{{ +}}40256{{ +}}{{[0-9]+}}{{ +}}40256{{ +}}0
// CHECK-DAG: threads-many.c:{{[0-9]+}}:21{{ +}}1{{ +}}{{[0-9]+}}{{ +}}1{{ +}}0
// TIGHT-NOT: assertion failed
// TIGHT: flat: yes
// TIGHT-NEXT: instances 40257 passes {{[0-9]+}} failures 0 dropped {{[1-9][0-9]*}}
