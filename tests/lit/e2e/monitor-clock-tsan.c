// The hybrid monitors' runtime under ThreadSanitizer: libvigil's sources
// and two generated units built with -fsanitize=thread (the hooks called
// directly, no link-time pass), then threads that share request ids step
// them, sleep so that the timer thread fires invariants in the middle of
// their events, and exit with open sections (the thread-exit removal runs
// while the timer scans).  TSan must report no race.
// RUN: %vigil-bin gen-monitor %S/Inputs/monitor/request.bind -o %t.request.c
// RUN: %vigil-bin gen-monitor %S/Inputs/monitor/section.bind -o %t.section.c
// RUN: clang-19 -fsanitize=thread -O1 -g -std=gnu11 -ftls-model=initial-exec -I%include -I%root/runtime -I/usr/include/libbson-1.0 -DBSON_STATIC %root/runtime/*.c %t.request.c %t.section.c %s -o %t -l:libbson-static-1.0.a -lm -lpthread
// RUN: env VIGIL_ON_FAILURE=count VIGIL_BACKTRACE=0 %t 2>&1 | FileCheck %s
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <vigil/runtime.h>

void __vigil_monitor_hook_request_0(int64_t arg0);
void __vigil_monitor_hook_request_1(int64_t arg0, int64_t arg1);
void __vigil_monitor_hook_section_0(void);
void __vigil_monitor_hook_section_1(void);

static void sleep_ms(long ms) {
  struct timespec t = {0, ms * 1000000};
  nanosleep(&t, 0);
}

static void *work(void *arg) {
  long t = (long)arg;
  for (int i = 0; i < 5000; i++) {
    long id = (t * 7 + i) % 64;
    __vigil_monitor_hook_request_0(id);
    if (i % 3)
      __vigil_monitor_hook_request_1(id, i % 5 ? 0 : -1);
    __vigil_monitor_hook_section_0();
    if (i % 1000 == 500)
      sleep_ms(30); /* past the section's 20 ms, and some requests' 100 ms */
    if (i != 4999)
      __vigil_monitor_hook_section_1(); /* the last section stays open */
  }
  return 0;
}

static long counts[4];
static void count(const struct vigil_violation *v, void *ctx) {
  (void)ctx;
  int k = !strcmp(v->reason, "monitor-guard")       ? 0
          : !strcmp(v->reason, "monitor-invariant")   ? 1
          : !strcmp(v->reason, "not-final-at-exit")   ? 3
                                                      : 2;
  __atomic_fetch_add(&counts[k], 1, __ATOMIC_RELAXED);
}

int main(void) {
  vigil_set_handler(count, 0);
  for (int wave = 0; wave < 2; wave++) {
    pthread_t th[4];
    for (long i = 0; i < 4; i++)
      pthread_create(&th[i], 0, work, (void *)(i + 4 * wave));
    for (int i = 0; i < 4; i++)
      pthread_join(th[i], 0);
  }
  long n[4];
  for (int k = 0; k < 4; k++)
    n[k] = __atomic_load_n(&counts[k], __ATOMIC_RELAXED);
  printf("guard %s, invariant %s, exit %s\n", n[0] ? "yes" : "no", n[1] ? "yes" : "no",
         n[3] ? "yes" : "no");
  return 0;
}
// CHECK-NOT: ThreadSanitizer
// CHECK: guard yes, invariant yes, exit yes
// CHECK-NOT: ThreadSanitizer
