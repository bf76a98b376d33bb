// A global monitor: one instance for the whole program, shared by every
// thread under the runtime's lock; conditions on arguments; the handler API
// and vigil_get_totals see monitors.
// RUN: %vigil-cc --vigil-monitor=%S/Inputs/monitor/service.bind -O1 %s -o %t -lpthread
// RUN: env VIGIL_STATS=1 %t ok 2>&1 | FileCheck %s --check-prefix=OK
// RUN: env VIGIL_ON_FAILURE=log %t late 2>&1 | FileCheck %s --check-prefix=LATE
// RUN: env VIGIL_ON_FAILURE=log %t handler 2>&1 | FileCheck %s --check-prefix=HANDLER
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <vigil/runtime.h>

static int running;

int service_start(int fail) {
  if (fail)
    return -1;
  running = 1;
  return 0;
}
void service_stop(void) { running = 0; }
int service_handle(int id, int kind) { return id + kind; }

void *client(void *arg) {
  for (int i = 0; i < 1000; i++)
    service_handle(i, 1);
  return arg;
}

void *late_client(void *arg) {
  service_handle(-1, 1); /* negative ids do not count */
  service_handle(5, 7);  /* health checks (kind 7) do not count */
  service_handle(5, 2);  /* the service is down */
  return arg;
}

static void on_violation(const struct vigil_violation *v, void *ctx) {
  ++*(int *)ctx;
  fprintf(stderr, "handler: [%s] %s: %s; event %s; allowed %s\n", v->reason, v->assertion,
          v->explanation, v->event, v->expected);
  service_handle(1, 1); /* monitored code inside the handler is ignored */
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "ok";
  setvbuf(stdout, NULL, _IONBF, 0);
  pthread_t t[4];
  int calls = 0;
  if (!strcmp(mode, "handler"))
    vigil_set_handler(on_violation, &calls);
  service_start(1); /* fails: the service stays down */
  service_handle(-5, 0);
  service_start(0);
  for (int i = 0; i < 4; i++)
    pthread_create(&t[i], NULL, client, NULL);
  for (int i = 0; i < 4; i++)
    pthread_join(t[i], NULL);
  service_stop();
  if (strcmp(mode, "ok") != 0) {
    pthread_create(&t[0], NULL, late_client, NULL);
    pthread_join(t[0], NULL);
  }
  struct vigil_totals tot;
  vigil_get_totals(&tot);
  printf("monitors=%llu monitor_events=%llu monitor_failures=%llu failures=%llu calls=%d\n",
         (unsigned long long)tot.monitors, (unsigned long long)tot.monitor_events,
         (unsigned long long)tot.monitor_failures, (unsigned long long)tot.failures, calls);
  return 0;
}
// 4 x 1000 requests, the start and the stop; the failed start and the
// request with a negative id do not reach the runtime.
// OK-NOT: violation
// OK: monitors=1 monitor_events=4002 monitor_failures=0 failures=0 calls=0
// OK: vigil: monitors
// OK-NEXT: monitor{{ +}}events violations dropped
// OK-NEXT: service (service.bind){{ +}}4002{{ +}}0{{ +}}0

// LATE: vigil: monitor violation: service ({{.*}}service.bind)
// LATE-NEXT: model service ({{.*}}service.dot), scope global
// LATE-NEXT: reason:{{ +}}event request is not allowed in state down (monitor-invalid-event)
// LATE-NEXT: event:{{ +}}request <- call:service_handle if arg0 >= 0 && arg1 != 7 (service.bind:7)
// LATE-NEXT: state:{{ +}}down
// LATE-NEXT: allowed:{{ +}}start
// LATE-NEXT: picture:{{ +}}vigil render {{.*}}service.dot --highlight down:request
// LATE-NOT: vigil: monitor
// LATE: monitors=1 monitor_events=4003 monitor_failures=1 failures=1 calls=0

// HANDLER-NOT: vigil: monitor violation
// HANDLER: handler: [monitor-invalid-event] service ({{.*}}service.bind): event request is not allowed in state down; event request <- call:service_handle if arg0 >= 0 && arg1 != 7 (service.bind:7); allowed start
// HANDLER-NOT: handler:
// HANDLER: monitors=1 monitor_events=4003 monitor_failures=1 failures=1 calls=1
