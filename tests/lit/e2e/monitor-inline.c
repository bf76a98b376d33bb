// The inline path of in-process monitors (include/vigil/monitor.h): a plain
// model's thread-scope hook makes an allowed transition with a compare, a
// store and a count, the global one with a compare-and-swap, both inlined
// into the monitored function by LTO; everything else reaches the runtime,
// which still reports each violation, ignores the events a violation
// handler raises, counts every event, and takes over for good after the
// thread's exit destructor ran.  The same binaries run with
// VIGIL_FAST_PATH=0 (the runtime decides every event) must say the same.
//
// The generated hooks: no call before the allowed case returns.
// RUN: env VIGIL_FAST_PATH=1 %vigil-bin gen-monitor %S/Inputs/monitor/txn.bind -o %t.thread.c
// RUN: clang -O2 -I%root/include -S %t.thread.c -o - | FileCheck %s --check-prefix=ASM-THREAD
// RUN: env VIGIL_FAST_PATH=1 %vigil-bin gen-monitor %S/Inputs/monitor/txn-global.bind -o %t.global.c
// RUN: clang -O2 -I%root/include -S %t.global.c -o - | FileCheck %s --check-prefix=ASM-GLOBAL
// RUN: env VIGIL_FAST_PATH=0 %vigil-bin gen-monitor %S/Inputs/monitor/txn.bind | FileCheck %s --check-prefix=NOFAST
//
// Linked: the hook is inlined into the function it watches.
// RUN: env VIGIL_FAST_PATH=1 %vigil-cc --vigil-monitor=%S/Inputs/monitor/txn.bind -O1 %s -o %t.inl -lpthread
// RUN: llvm-objdump -d --no-show-raw-insn --disassemble-symbols=txn_commit %t.inl | FileCheck %s --check-prefix=LINKED
//
// Behaviour, per thread and global, with the inline path on and off:
// RUN: %vigil-cc --vigil-monitor=%S/Inputs/monitor/txn.bind -O1 %s -o %t.t -lpthread
// RUN: %vigil-cc --vigil-monitor=%S/Inputs/monitor/txn-global.bind -O1 %s -o %t.g -lpthread
// RUN: %t.t count 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: env VIGIL_FAST_PATH=0 %t.t count 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: %t.g count 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: env VIGIL_FAST_PATH=0 %t.g count 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: env VIGIL_ON_FAILURE=log %t.t handler 2>&1 | FileCheck %s --check-prefix=HANDLER
// RUN: env VIGIL_ON_FAILURE=log VIGIL_FAST_PATH=0 %t.t handler 2>&1 | FileCheck %s --check-prefix=HANDLER
// RUN: env VIGIL_ON_FAILURE=log %t.g handler 2>&1 | FileCheck %s --check-prefix=HANDLER
// RUN: env VIGIL_ON_FAILURE=log VIGIL_FAST_PATH=0 %t.g handler 2>&1 | FileCheck %s --check-prefix=HANDLER
// RUN: env VIGIL_ON_FAILURE=log %t.t after-exit 2>&1 | FileCheck %s --check-prefix=AFTER
// RUN: env VIGIL_ON_FAILURE=log VIGIL_FAST_PATH=0 %t.t after-exit 2>&1 | FileCheck %s --check-prefix=AFTER
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <vigil/runtime.h>

__attribute__((noinline)) int txn_begin(int fail) { return fail ? -1 : 0; }
__attribute__((noinline)) void txn_commit(void) { __asm__ volatile(""); }
__attribute__((noinline)) void txn_abort(void) { __asm__ volatile(""); }

/* The program's own lock keeps each transaction whole under the global
 * monitor: its instance is shared, so only the program can order them. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg) {
  for (int i = 0; i < 1000; i++) {
    pthread_mutex_lock(&lock);
    txn_begin(0);
    if (i % 2)
      txn_commit();
    else
      txn_abort();
    pthread_mutex_unlock(&lock);
  }
  return arg;
}

static int calls;
static void on_violation(const struct vigil_violation *v, void *ctx) {
  (void)ctx;
  calls++;
  fprintf(stderr, "handler %d: [%s] %s\n", calls, v->reason, v->event);
  txn_begin(0); /* allowed in idle, but raised by the handler: ignored */
}

/* Runs after the runtime's own thread-exit destructor (a key created
 * later has a higher index; glibc calls them in that order). */
static pthread_key_t late_key;
static void late(void *p) {
  (void)p;
  txn_begin(0); /* allowed: must still be counted (no registration left) */
  txn_commit();
  txn_commit(); /* not allowed in idle: still reported */
}
static void *exiting(void *arg) {
  txn_begin(0);
  txn_commit();
  pthread_setspecific(late_key, (void *)1);
  return arg;
}

static void totals(void) {
  struct vigil_totals tot;
  vigil_get_totals(&tot);
  printf("monitor_events=%llu monitor_failures=%llu calls=%d\n",
         (unsigned long long)tot.monitor_events, (unsigned long long)tot.monitor_failures, calls);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "count";
  setvbuf(stdout, NULL, _IONBF, 0);
  pthread_t t[4];
  if (!strcmp(mode, "count")) {
    for (int i = 0; i < 4; i++)
      pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < 4; i++)
      pthread_join(t[i], NULL);
    txn_begin(1); /* failed: no event */
    txn_begin(0);
    txn_commit();
  } else if (!strcmp(mode, "handler")) {
    vigil_set_handler(on_violation, NULL);
    txn_begin(0);
    txn_commit();
    txn_commit(); /* idle: a violation; the handler's begin is ignored ... */
    txn_commit(); /* ... so this one is one too */
  } else if (!strcmp(mode, "after-exit")) {
    txn_begin(0); /* the runtime's key exists before ours */
    txn_commit();
    pthread_key_create(&late_key, late);
    pthread_create(&t[0], NULL, exiting, NULL);
    pthread_join(t[0], NULL);
  }
  totals();
  return 0;
}

// ASM-THREAD-LABEL: __vigil_monitor_hook_txn_1:
// ASM-THREAD-NOT: call
// ASM-THREAD-NOT: __vigil_monitor_event
// ASM-THREAD: movl $1, %fs:vigil_tls@TPOFF
// ASM-THREAD-NEXT: incq %fs:vigil_tls@TPOFF+8
// ASM-THREAD-NEXT: retq
// ASM-THREAD: __vigil_monitor_event
// ASM-THREAD-LABEL: .Lfunc_end1:

// ASM-GLOBAL-LABEL: __vigil_monitor_hook_txn_global_1:
// ASM-GLOBAL-NOT: call
// ASM-GLOBAL-NOT: __vigil_monitor_event
// ASM-GLOBAL: lock cmpxchgl
// ASM-GLOBAL-NOT: call
// ASM-GLOBAL: incq %fs:vigil_tls@TPOFF+8
// ASM-GLOBAL-NEXT: retq
// ASM-GLOBAL: __vigil_monitor_event
// ASM-GLOBAL-LABEL: .Lfunc_end1:

// NOFAST-NOT: inline path
// NOFAST: __vigil_monitor_event(&vigil_monitor, &vigil_tls, 1, 0);
// NOFAST-NOT: inline path

// LINKED-LABEL: <txn_commit>:
// LINKED-NEXT: cmpl $0x2, %fs:
// LINKED-NEXT: jne
// LINKED-NEXT: movl $0x1, %fs:
// LINKED-NEXT: incq %fs:
// LINKED-NEXT: retq

// 4 x 1000 transactions of two events, then one: every event counted,
// inline or not, those of exited threads too.
// COUNT-NOT: violation
// COUNT: monitor_events=8002 monitor_failures=0 calls=0

// HANDLER: handler 1: [monitor-invalid-event] commit <- call:txn_commit
// HANDLER-NEXT: handler 2: [monitor-invalid-event] commit <- call:txn_commit
// HANDLER-NEXT: monitor_events=4 monitor_failures=2 calls=2

// After the thread's exit destructor: decided and counted by the runtime.
// AFTER: vigil: monitor violation: txn
// AFTER: reason:{{ +}}event commit is not allowed in state idle (monitor-invalid-event)
// AFTER-NOT: vigil: monitor violation
// AFTER: monitor_events=7 monitor_failures=1 calls=0
