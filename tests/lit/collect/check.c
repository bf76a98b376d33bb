// --check on a live stream: the mutex model (examples/mutex/mutex.bind)
// over calls to pthread_mutex_* that vigil-cc traced on the caller side
// (libc is not instrumented); an unlock of an unlocked mutex is reported
// as it happens, stored in the catalog, and makes the exit status 1.
// RUN: %vigil-cc -O1 --vigil-trace=pthread_mutex_lock,pthread_mutex_unlock,pthread_mutex_destroy %s -o %t -lpthread
// RUN: rm -rf %t.store
// RUN: %collect run --store %t.store --streams 1 --collector-arg=--check --collector-arg=%root/examples/mutex/mutex.bind --collector-arg=--json '%t' > %t.out
// RUN: FileCheck %s --check-prefix=OUT < %t.out
// The core keys every engine's violation starts with (tests/lit/bpf/core-keys.test).
// RUN: %python %root/tests/lit/report/inputs/core_keys.py %t.out | FileCheck %s --check-prefix=CORE
// CORE: collect: 1 violation(s), core keys ok
// RUN: %collect summary --store %t.store | FileCheck %s --check-prefix=SUM
// RUN: sqlite3 %t.store/catalog.sqlite "SELECT model, state, event, source FROM violations" | FileCheck %s --check-prefix=SQL
#include <pthread.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
static void *twice(void *x) {
  (void)x;
  pthread_mutex_lock(&b);
  pthread_mutex_unlock(&b);
  pthread_mutex_unlock(&b); /* the bug */
  return 0;
}
int main(void) {
  for (int i = 0; i < 1000; i++) {
    pthread_mutex_lock(&a);
    pthread_mutex_unlock(&a);
  }
  pthread_t t;
  pthread_create(&t, 0, twice, 0);
  pthread_join(t, 0);
  pthread_mutex_destroy(&a);
  return 0;
}
// OUT: producer exit 0
// OUT: {"type":"violation","engine":"collect","model":"mutex","kind":"event","state":"unlocked","event":"unlock","allowed":["lock"],"scope":"object","key":{"field":"arg0","value":{{[0-9]+}}},"rule":"{{.*}}mutex.bind:{{[0-9]+}}","source":"call:pthread_mutex_unlock","time_ns":{{[0-9]+}},"pid":{{[0-9]+}},"tgid":{{[0-9]+}},"cpu":null,"comm":null,"stream":{{.*}},"stream_event":"entry pthread_mutex_unlock"}
// OUT-NOT: "type":"violation"
// OUT: checked: {{[0-9]+}} events, {{[0-9]+}} rule firings, 1 violation(s)
// OUT: collector exit 1
// SUM: producer check.c.tmp mode lossless ended True complete True {{.*}} violations 1
// SQL: mutex|unlocked|unlock|entry pthread_mutex_unlock
