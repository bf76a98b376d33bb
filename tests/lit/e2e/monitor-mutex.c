// A per-object monitor on libc functions (caller side): the worked example's
// binding, examples/mutex/mutex.bind, one instance per pthread_mutex_t.
// RUN: %vigil-cc --vigil-monitor=%root/examples/mutex/mutex.bind -O1 %s -o %t -lpthread 2>&1 | FileCheck %s --check-prefix=BUILD --allow-empty
// RUN: %t ok 2>&1 | FileCheck %s --check-prefix=OK
// RUN: env VIGIL_ON_FAILURE=log VIGIL_STATS=1 %t threads 2>&1 | FileCheck %s --check-prefix=THREADS
// RUN: not --crash %t double 2>&1 | FileCheck %s --check-prefix=DOUBLE
// RUN: env VIGIL_ON_FAILURE=log %t unlock 2>&1 | FileCheck %s --check-prefix=UNLOCK
// RUN: env VIGIL_ON_FAILURE=log %t destroy 2>&1 | FileCheck %s --check-prefix=DESTROY
// RUN: env VIGIL_ON_FAILURE=log %t trylock 2>&1 | FileCheck %s --check-prefix=TRYLOCK
// RUN: rm -f %t.jsonl
// RUN: env VIGIL_ON_FAILURE=log VIGIL_REPORT=%t.jsonl %t double
// RUN: FileCheck %s --check-prefix=JSON < %t.jsonl
// RUN: %python %root/tests/lit/report/inputs/core_keys.py %t.jsonl | FileCheck %s --check-prefix=CORE
// RUN: %vigil-bin report --sarif %t.jsonl | FileCheck %s --check-prefix=SARIF
// RUN: env VIGIL_ON_FAILURE=count %t unlock 2>&1 | FileCheck %s --check-prefix=COUNT
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t shared = PTHREAD_MUTEX_INITIALIZER;
static long counter;

void *work(void *arg) {
  for (int i = 0; i < 10000; i++) {
    pthread_mutex_lock(&shared);
    counter++;
    pthread_mutex_unlock(&shared);
  }
  return arg;
}

__attribute__((noinline)) void relock(pthread_mutex_t *m) {
  pthread_mutex_lock(m);
  int r = pthread_mutex_lock(m); /* error-checking: EDEADLK, no deadlock */
  printf("second lock: %d\n", r);
  pthread_mutex_unlock(m);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "ok";
  setvbuf(stdout, NULL, _IONBF, 0);
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ERRORCHECK);
  pthread_mutex_t m;
  pthread_mutex_init(&m, &attr);
  pthread_setname_np(pthread_self(), "main-thread");

  if (!strcmp(mode, "ok")) {
    pthread_mutex_lock(&m);
    pthread_mutex_unlock(&m);
    if (pthread_mutex_trylock(&m) == 0)
      pthread_mutex_unlock(&m);
  } else if (!strcmp(mode, "threads")) {
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
      pthread_create(&t[i], NULL, work, NULL);
    for (int i = 0; i < 4; i++)
      pthread_join(t[i], NULL);
    printf("counter %ld\n", counter);
  } else if (!strcmp(mode, "double")) {
    printf("mutex at %p\n", (void *)&m);
    relock(&m);
  } else if (!strcmp(mode, "unlock")) {
    pthread_mutex_lock(&m);
    pthread_mutex_unlock(&m);
    pthread_mutex_unlock(&m); /* EPERM */
  } else if (!strcmp(mode, "destroy")) {
    pthread_mutex_t local;
    pthread_mutex_init(&local, NULL);
    pthread_mutex_lock(&local);
    pthread_mutex_destroy(&local); /* still locked */
    /* the instance is forgotten: a new mutex at the same address is fresh */
    pthread_mutex_init(&local, NULL);
    pthread_mutex_lock(&local);
    pthread_mutex_unlock(&local);
    pthread_mutex_destroy(&local);
  } else if (!strcmp(mode, "trylock")) {
    pthread_mutex_lock(&m);
    if (pthread_mutex_trylock(&m) != 0) /* EBUSY: not a lock */
      puts("busy");
    pthread_mutex_unlock(&m);
    pthread_mutex_unlock(&m); /* one too many */
  }
  pthread_mutex_destroy(&m);
  puts("done");
  return 0;
}
// BUILD-NOT: warning

// OK-NOT: vigil
// OK: done
// OK-NOT: vigil

// THREADS-NOT: violation
// THREADS: counter 40000
// THREADS: vigil: monitors
// THREADS-NEXT: monitor{{ +}}events violations dropped
// 4 x 10000 x (lock + unlock), and the destroy of m
// THREADS-NEXT: mutex (mutex.bind){{ +}}80001{{ +}}0{{ +}}0

// DOUBLE: mutex at [[KEY:0x[0-9a-f]+]]
// DOUBLE: vigil: monitor violation: mutex ({{.*}}examples/mutex/mutex.bind)
// DOUBLE-NEXT: model mutex ({{.*}}models/mutex.dot), scope object
// DOUBLE-NEXT: reason:{{ +}}event lock is not allowed in state locked (monitor-invalid-event)
// DOUBLE-NEXT: event:{{ +}}lock <- return:pthread_mutex_lock key=arg0 if ret == 35 (mutex.bind:17)
// DOUBLE-NEXT: state:{{ +}}locked
// DOUBLE-NEXT: values:{{ +}}key = [[KEY]]
// DOUBLE-NEXT: allowed:{{ +}}unlock
// DOUBLE-NEXT: picture:{{ +}}vigil render {{.*}}models/mutex.dot --highlight locked:lock
// DOUBLE-NEXT: thread:{{ +}}{{[0-9]+}} (main-thread)
// DOUBLE-NEXT: backtrace:
// DOUBLE-NEXT: #0 {{.*}}relock (
// DOUBLE-NEXT: #1 {{.*}}main (
// DOUBLE: vigil: aborting

// UNLOCK: vigil: monitor violation: mutex
// UNLOCK: reason:{{ +}}event unlock is not allowed in state unlocked (monitor-invalid-event)
// UNLOCK-NEXT: event:{{ +}}unlock <- call:pthread_mutex_unlock key=arg0 (mutex.bind:21)
// UNLOCK-NEXT: state:{{ +}}unlocked
// UNLOCK-NEXT: values:{{ +}}key = 0x
// UNLOCK-NEXT: allowed:{{ +}}lock
// UNLOCK-NOT: vigil: monitor
// UNLOCK: done

// DESTROY: reason:{{ +}}the instance was forgotten in state locked, which is not final (not-final)
// DESTROY-NEXT: event:{{ +}}forget <- call:pthread_mutex_destroy key=arg0 (mutex.bind:23)
// DESTROY-NEXT: state:{{ +}}locked
// DESTROY-NEXT: values:{{ +}}key = 0x
// DESTROY-NEXT: allowed:{{ +}}unlock
// DESTROY-NOT: vigil: monitor
// DESTROY: done

// A trylock that fails is no lock; one unlock too many.
// TRYLOCK: busy
// TRYLOCK: event unlock is not allowed in state unlocked
// TRYLOCK-NOT: vigil: monitor
// TRYLOCK: done

// JSON: {"type":"violation","engine":"process","model":"mutex","kind":"event","state":"locked","event":"lock","allowed":["unlock"],"scope":"object","key":{"field":"arg0","value":[[KEY:[0-9]+]]},"rule":"{{.*}}mutex.bind:17","source":"return:pthread_mutex_lock","time_ns":{{[0-9]+}},"pid":[[PID:[0-9]+]],"tgid":[[PID]],"cpu":{{[0-9]+}},"comm":"main-thread","monitor":"mutex","binding":"{{.*}}mutex.bind","model_file":"{{.*}}models/mutex.dot","reason":"monitor-invalid-event","explanation":"event lock is not allowed in state locked","rule_text":"lock <- return:pthread_mutex_lock key=arg0 if ret == 35","render":"vigil render {{.*}}models/mutex.dot --highlight locked:lock","backtrace":[{{.*}}relock
// After the violation the instance is back in the initial state (the
// kernel's reset), so relock's unlock is an unlock without a lock.
// JSON-NEXT: "kind":"event","state":"unlocked","event":"unlock","allowed":["lock"],"scope":"object","key":{"field":"arg0","value":[[KEY]]},"rule":"{{.*}}mutex.bind:21","source":"call:pthread_mutex_unlock",
// JSON-NOT: {"assertion"

// COUNT-NOT: monitor violation
// COUNT: vigil: 1 violation counted
// COUNT-NEXT: monitor mutex (mutex.bind): 1
// CORE: process: 2 violation(s), core keys ok
// vigil report --sarif reads it as every engine's line: the binding rule is
// the location, the backtrace a stack.
// SARIF: "name": "relock"
// SARIF: "uri": "file://{{.*}}mutex.bind"
// SARIF-NEXT: },
// SARIF-NEXT: "region": {
// SARIF-NEXT: "startLine": 17
// SARIF: "ruleId": "monitor/mutex"
// SARIF: "text": "backtrace of task
