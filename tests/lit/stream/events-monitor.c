// --vigil-trace-events with an in-process monitor (examples/mutex/mutex.bind):
// the libc functions its rules bind are traced around each call (caller
// side), and each violation streams one verdict event named after the
// monitor, the reason, the state and the event, with the instance key,
// the state's and the event's index in the model (unlocked 0, locked 1;
// lock 0, unlock 1; -1 for forget) and the binding rule's line.  The
// verdict follows the record of the event that raised it: a return
// record (lock binds return:) or an entry record (unlock binds call:).
// With VIGIL_ON_FAILURE=abort the first verdict and the stream's end are in
// the file although the program aborted.
// RUN: %vigil-cc --vigil-trace-events --vigil-monitor=%root/examples/mutex/mutex.bind -O1 %s -o %t -lpthread
// RUN: env VIGIL_STREAM=file:%t.ok %t ok > /dev/null
// RUN: %check-stream %t.ok | FileCheck %s --check-prefix=OK
// RUN: env VIGIL_STREAM=file:%t.double VIGIL_ON_FAILURE=log %t double > %t.double.out 2> %t.double.err
// RUN: FileCheck %s --check-prefix=REPORT < %t.double.err
// RUN: %check-stream %t.double --hello > %t.double.check
// RUN: %check-stream %t.double --values pthread_mutex_lock/return --values pthread_mutex_unlock/entry --values "monitor mutex monitor-invalid-event locked lock/verdict" --values "monitor mutex monitor-invalid-event unlocked unlock/verdict" | grep value > %t.double.values
// RUN: cat %t.double.out %t.double.check %t.double.values | FileCheck %s --check-prefix=DOUBLE
// RUN: env VIGIL_STREAM=file:%t.destroy VIGIL_ON_FAILURE=log %t destroy > %t.destroy.out 2> /dev/null
// RUN: %check-stream %t.destroy --values "monitor mutex not-final locked forget/verdict" > %t.destroy.check
// RUN: cat %t.destroy.out %t.destroy.check | FileCheck %s --check-prefix=DESTROY
// RUN: not --crash env VIGIL_STREAM=file:%t.abort %t double > /dev/null 2> %t.abort.err
// RUN: FileCheck %s --check-prefix=REPORT < %t.abort.err
// RUN: %check-stream %t.abort | FileCheck %s --check-prefix=ABORT
// Without VIGIL_STREAM: the report as always, no stream.
// RUN: rm -f %t.none && env VIGIL_ON_FAILURE=log %t double 2>&1 | FileCheck %s --check-prefix=REPORT && not test -e %t.none
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ERRORCHECK);
  pthread_mutex_t m;
  pthread_mutex_init(&m, &attr);
  printf("mutex %lu\n", (unsigned long)&m);
  if (!strcmp(argv[1], "ok")) {
    pthread_mutex_lock(&m);
    pthread_mutex_unlock(&m);
  } else if (!strcmp(argv[1], "double")) {
    pthread_mutex_lock(&m);
    int r = pthread_mutex_lock(&m); /* error-checking: EDEADLK (35) */
    printf("second lock %d\n", r);
    pthread_mutex_unlock(&m); /* the instance was reset: unlock in unlocked */
  } else if (!strcmp(argv[1], "destroy")) {
    pthread_mutex_lock(&m);
    pthread_mutex_destroy(&m); /* destroyed while locked */
    return 0;
  }
  pthread_mutex_destroy(&m);
  return 0;
}

// OK: threads 1 batches {{[0-9]+}} events 6 lost 0 produced 6
// OK-NEXT: event pthread_mutex_destroy/entry 1
// OK-NEXT: event pthread_mutex_destroy/return 1
// OK-NEXT: event pthread_mutex_lock/entry 1
// OK-NEXT: event pthread_mutex_lock/return 1
// OK-NEXT: event pthread_mutex_unlock/entry 1
// OK-NEXT: event pthread_mutex_unlock/return 1
// OK-NOT: {{^}}event 

// REPORT: vigil: monitor violation: mutex
// REPORT: reason:{{ +}}event lock is not allowed in state locked (monitor-invalid-event)

// DOUBLE: mutex [[M:[0-9]+]]
// DOUBLE-NEXT: second lock 35
// DOUBLE-NEXT: threads 1 batches {{[0-9]+}} events 10 lost 0 produced 10
// DOUBLE-NEXT: event monitor mutex monitor-invalid-event locked lock/verdict 1
// DOUBLE-NEXT: event monitor mutex monitor-invalid-event unlocked unlock/verdict 1
// DOUBLE-NEXT: event pthread_mutex_destroy/entry 1
// DOUBLE-NEXT: event pthread_mutex_destroy/return 1
// DOUBLE-NEXT: event pthread_mutex_lock/entry 2
// DOUBLE-NEXT: event pthread_mutex_lock/return 2
// DOUBLE-NEXT: event pthread_mutex_unlock/entry 1
// DOUBLE-NEXT: event pthread_mutex_unlock/return 1
// DOUBLE-NOT: {{^}}event 
// DOUBLE-DAG: declare pthread_mutex_lock/entry args ptr names -
// DOUBLE-DAG: declare pthread_mutex_lock/return args u64 names ret
// DOUBLE-DAG: declare monitor mutex monitor-invalid-event locked lock/verdict args u64,u64,i64,u64 names key,state,event,line
// DOUBLE-DAG: declare monitor mutex monitor-invalid-event unlocked unlock/verdict args u64,u64,i64,u64 names key,state,event,line
// key, state, event, line (mutex.bind:17 and :21)
// DOUBLE: value pthread_mutex_lock/return 0
// DOUBLE-NEXT: value pthread_mutex_lock/return 35
// DOUBLE-NEXT: value monitor mutex monitor-invalid-event locked lock/verdict [[M]] 1 0 17
// DOUBLE-NEXT: value pthread_mutex_unlock/entry [[MHEX:0x[0-9a-f]+]]
// DOUBLE-NEXT: value monitor mutex monitor-invalid-event unlocked unlock/verdict [[M]] 0 1 21
// DOUBLE-NOT: value

// DESTROY: mutex [[M:[0-9]+]]
// DESTROY: event monitor mutex not-final locked forget/verdict 1
// DESTROY: value monitor mutex not-final locked forget/verdict [[M]] 1 -1 23

// ABORT: threads 1 batches {{[0-9]+}} events 5 lost 0 produced 5
// ABORT-NEXT: event monitor mutex monitor-invalid-event locked lock/verdict 1
// ABORT-NEXT: event pthread_mutex_lock/entry 2
// ABORT-NEXT: event pthread_mutex_lock/return 2
// ABORT-NOT: {{^}}event 
