// A per-thread monitor on functions the program defines (callee side: an
// indirect call is seen too), a condition on the return value, and
// `at_exit final`: transactions still open when their thread or the program
// exits are violations.
// RUN: %vigil-cc --vigil-monitor=%S/Inputs/monitor/txn.bind -O1 %s -o %t -lpthread
// RUN: %t ok 2>&1 | FileCheck %s --check-prefix=OK
// RUN: env VIGIL_ON_FAILURE=log %t failed-begin 2>&1 | FileCheck %s --check-prefix=FAILED
// RUN: env VIGIL_ON_FAILURE=log %t other-thread 2>&1 | FileCheck %s --check-prefix=OTHER
// RUN: env VIGIL_ON_FAILURE=log %t thread-exit 2>&1 | FileCheck %s --check-prefix=TEXIT
// RUN: env VIGIL_ON_FAILURE=log %t program-exit 2>&1 | FileCheck %s --check-prefix=PEXIT
// RUN: env VIGIL_ON_FAILURE=log %t indirect 2>&1 | FileCheck %s --check-prefix=INDIRECT
// RUN: rm -f %t.jsonl
// RUN: env VIGIL_ON_FAILURE=log VIGIL_REPORT=%t.jsonl %t other-thread
// RUN: FileCheck %s --check-prefix=JSON < %t.jsonl
// RUN: rm -f %t.texit.jsonl %t.pexit.jsonl
// RUN: env VIGIL_ON_FAILURE=log VIGIL_REPORT=%t.texit.jsonl %t thread-exit
// RUN: FileCheck %s --check-prefix=JSON-TEXIT < %t.texit.jsonl
// RUN: env VIGIL_ON_FAILURE=log VIGIL_REPORT=%t.pexit.jsonl %t program-exit
// RUN: FileCheck %s --check-prefix=JSON-PEXIT < %t.pexit.jsonl
// RUN: %python %root/tests/lit/report/inputs/core_keys.py %t.jsonl %t.texit.jsonl %t.pexit.jsonl | FileCheck %s --check-prefix=CORE
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static int depth;

/* noinline: the backtraces below name them */
__attribute__((noinline)) int txn_begin(int fail) {
  if (fail)
    return -1;
  depth++;
  return 0;
}
__attribute__((noinline)) void txn_commit(void) { depth = 0; }
__attribute__((noinline)) void txn_abort(void) { depth = 0; }

void *committer(void *arg) {
  pthread_setname_np(pthread_self(), "committer");
  txn_commit(); /* this thread never began one */
  return arg;
}

void *leaker(void *arg) {
  pthread_setname_np(pthread_self(), "leaker");
  txn_begin(0);
  return arg; /* exits with its transaction open */
}

void *worker(void *arg) {
  for (int i = 0; i < 1000; i++) {
    txn_begin(0);
    if (i % 2)
      txn_commit();
    else
      txn_abort();
  }
  return arg;
}

void (*volatile finish)(void) = txn_commit;

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "ok";
  setvbuf(stdout, NULL, _IONBF, 0);
  pthread_t t;
  if (!strcmp(mode, "ok")) {
    pthread_t ts[4];
    for (int i = 0; i < 4; i++)
      pthread_create(&ts[i], NULL, worker, NULL);
    for (int i = 0; i < 4; i++)
      pthread_join(ts[i], NULL);
    if (txn_begin(1) != 0) /* failed: no transaction */
      puts("begin failed");
  } else if (!strcmp(mode, "failed-begin")) {
    txn_begin(1); /* the failure is ignored ... */
    txn_commit(); /* ... and a transaction that never began is committed */
  } else if (!strcmp(mode, "other-thread")) {
    txn_begin(0);
    pthread_create(&t, NULL, committer, NULL);
    pthread_join(t, NULL);
    txn_commit(); /* main's own transaction: fine */
  } else if (!strcmp(mode, "thread-exit")) {
    pthread_create(&t, NULL, leaker, NULL);
    pthread_join(t, NULL);
    puts("joined");
  } else if (!strcmp(mode, "program-exit")) {
    txn_begin(0);
    puts("returning");
    return 0;
  } else if (!strcmp(mode, "indirect")) {
    finish(); /* through a pointer: seen in txn_commit's body */
  }
  puts("done");
  return 0;
}
// OK-NOT: vigil
// OK: begin failed
// OK-NEXT: done
// OK-NOT: vigil

// FAILED: vigil: monitor violation: txn ({{.*}}Inputs/monitor/txn.bind)
// FAILED-NEXT: model txn ({{.*}}txn.dot), scope task
// FAILED-NEXT: reason:{{ +}}event commit is not allowed in state idle (monitor-invalid-event)
// FAILED-NEXT: event:{{ +}}commit <- call:txn_commit (txn.bind:7)
// FAILED-NEXT: state:{{ +}}idle
// FAILED-NEXT: allowed:{{ +}}begin
// FAILED: backtrace:
// FAILED-NEXT: #0 {{.*}}txn_commit (
// FAILED-NEXT: #1 {{.*}}main (
// FAILED-NOT: vigil: monitor
// FAILED: done

// Only the thread without a transaction is reported.
// OTHER: event:{{ +}}commit <- call:txn_commit (txn.bind:7)
// OTHER: thread:{{ +}}{{[0-9]+}} (committer)
// OTHER-NOT: vigil: monitor
// OTHER: done

// TEXIT: vigil: monitor violation: txn
// TEXIT-NEXT: model txn
// TEXIT-NEXT: reason:{{ +}}the thread exited in state open, which is not final (not-final-at-exit)
// TEXIT-NEXT: event:{{ +}}thread exit
// TEXIT-NEXT: state:{{ +}}open
// TEXIT-NEXT: allowed:{{ +}}abort | commit
// TEXIT-NEXT: picture:{{ +}}vigil render {{.*}}txn.dot
// TEXIT-NEXT: thread:{{ +}}{{[0-9]+}} (leaker)
// TEXIT-NOT: vigil: monitor
// TEXIT: joined

// PEXIT: returning
// PEXIT-NEXT: vigil: monitor violation: txn
// PEXIT-NEXT: model txn
// PEXIT-NEXT: reason:{{ +}}the program exited in state open, which is not final (not-final-at-exit)
// PEXIT-NEXT: event:{{ +}}program exit
// PEXIT-NOT: vigil: monitor

// INDIRECT: event:{{ +}}commit <- call:txn_commit (txn.bind:7)
// INDIRECT: done

// The core shape of every engine (docs/integration.md): the instance is the
// thread itself, so the key names no field; the thread that committed is
// the task (pid, comm), in this process (tgid).
// JSON: {"type":"violation","engine":"process","model":"txn","kind":"event","state":"idle","event":"commit","allowed":["begin"],"scope":"task","key":{"field":null,"value":[[TID:[0-9]+]]},"rule":"{{.*}}txn.bind:7","source":"call:txn_commit","time_ns":{{[0-9]+}},"pid":[[TID]],"tgid":{{[0-9]+}},"cpu":{{[0-9]+}},"comm":"committer","monitor":"txn",{{.*}}"reason":"monitor-invalid-event","explanation":"event commit is not allowed in state idle","rule_text":"commit <- call:txn_commit","render":"vigil render {{.*}}txn.dot --highlight idle:commit","backtrace":[{{.*}}txn_commit
// JSON-NOT: {"assertion"

// Left open at exit: no rule fired (no event), the final states are listed.
// JSON-TEXIT: {"type":"violation","engine":"process","model":"txn","kind":"not-final","state":"open","event":"none","allowed":["abort","commit"],"scope":"task","key":{"field":null,"value":[[TID:[0-9]+]]},"rule":null,"source":null,"time_ns":{{[0-9]+}},"pid":[[TID]],"tgid":{{[0-9]+}},"cpu":{{[0-9]+}},"comm":"leaker",{{.*}}"reason":"not-final-at-exit","explanation":"the thread exited in state open, which is not final","final":["idle"],
// JSON-PEXIT: {"type":"violation","engine":"process","model":"txn","kind":"not-final","state":"open","event":"none",{{.*}}"key":{"field":null,"value":[[PID:[0-9]+]]},"rule":null,"source":null,"time_ns":{{[0-9]+}},"pid":[[PID]],"tgid":[[PID]],{{.*}}"reason":"not-final-at-exit","explanation":"the program exited in state open
// CORE:      process: 1 violation(s), core keys ok
// CORE-NEXT: process: 1 violation(s), core keys ok
// CORE-NEXT: process: 1 violation(s), core keys ok
// CORE-NEXT: same core keys
