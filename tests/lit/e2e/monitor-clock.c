// Hybrid automata in process, on the real clock (CLOCK_MONOTONIC) and its
// timer thread: a request must be answered within 100 ms, not before 20 ms,
// with a status >= 0 (request.bind, per request id); a section a thread
// begins must end within 20 ms (section.bind, per thread).  An invariant
// fires from the timer thread while the program sleeps, before any next
// event; guards fire at the reply.  (The conformance corpus checks the same
// engine on exact times: VIGIL_MONITOR_CLOCK=manual.)
// RUN: %vigil-cc --vigil-monitor=%S/Inputs/monitor/request.bind --vigil-monitor=%S/Inputs/monitor/section.bind -O1 %s -o %t -lpthread 2>&1 | FileCheck %s --check-prefix=BUILD --allow-empty
// RUN: env VIGIL_ON_FAILURE=log %t ok 2>&1 | FileCheck %s --check-prefix=OK
// A report symbolizes its backtrace before it prints (llvm-symbolizer's
// start can take longer than the sleeps here), and the timer thread's
// backtrace says nothing: these runs go without.
// RUN: env VIGIL_ON_FAILURE=log VIGIL_BACKTRACE=0 %t late 2>&1 | FileCheck %s --check-prefix=LATE
// RUN: env VIGIL_ON_FAILURE=log VIGIL_BACKTRACE=0 %t timing 2>&1 | FileCheck %s --check-prefix=TIMING
// By default a violation aborts: here the timer thread's, in the sleep.
// RUN: env VIGIL_BACKTRACE=0 not --crash %t late 2>&1 | FileCheck %s --check-prefix=ABORT
// RUN: env VIGIL_ON_FAILURE=log %t early 2>&1 | FileCheck %s --check-prefix=EARLY
// RUN: env VIGIL_ON_FAILURE=log %t status 2>&1 | FileCheck %s --check-prefix=STATUS
// RUN: env VIGIL_ON_FAILURE=log %t exit 2>&1 | FileCheck %s --check-prefix=EXIT
// RUN: env VIGIL_ON_FAILURE=log VIGIL_BACKTRACE=0 %t threads 2>&1 | FileCheck %s --check-prefix=THREADS
// RUN: rm -f %t.jsonl
// RUN: env VIGIL_ON_FAILURE=log VIGIL_REPORT=%t.jsonl %t late
// RUN: FileCheck %s --check-prefix=JSON < %t.jsonl
// RUN: %python %root/tests/lit/report/inputs/core_keys.py %t.jsonl | FileCheck %s --check-prefix=CORE
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vigil/runtime.h>

// Hybrid parts are run, not warned about.
// BUILD-NOT: warning

/* noinline: the backtraces name them */
__attribute__((noinline)) void request(long id) { __asm__ volatile("" ::"r"(id)); }
__attribute__((noinline)) void reply(long id, long status) {
  __asm__ volatile("" ::"r"(id), "r"(status));
}
__attribute__((noinline)) void section_begin(void) { __asm__ volatile(""); }
__attribute__((noinline)) void section_end(void) { __asm__ volatile(""); }

static void sleep_ms(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000};
  while (nanosleep(&t, &t))
    ;
}

/* Threads of this process named vigil-timer. */
static int timers(void) {
  int n = 0;
  DIR *d = opendir("/proc/self/task");
  for (struct dirent *e; d && (e = readdir(d));) {
    char path[64], comm[32] = "";
    snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
    FILE *f = fopen(path, "r");
    if (f && fgets(comm, sizeof comm, f))
      n += !strcmp(comm, "vigil-timer\n");
    if (f)
      fclose(f);
  }
  if (d)
    closedir(d);
  return n;
}

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000ll + t.tv_nsec;
}

/* The timing run's handler: when it ran, after the expiry its report names. */
static volatile long long late_by = -1;
static void on_violation(const struct vigil_violation *v, void *ctx) {
  (void)ctx;
  const char *at = strstr(v->values, "expired at = ");
  if (at && !strcmp(v->thread_name, "vigil-timer"))
    late_by = now_ns() - strtoll(at + 13, NULL, 10);
}

static void *late_section(void *arg) {
  pthread_setname_np(pthread_self(), "sectioner");
  section_begin();
  sleep_ms(300); /* the timer reports this thread's section meanwhile */
  puts("section thread woke");
  section_end(); /* its instance was reset: out, so this is `section_end` in out */
  section_begin();
  return arg; /* exits inside a section: not-final-at-exit */
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "ok";
  setvbuf(stdout, NULL, _IONBF, 0);
  if (!strcmp(mode, "ok")) {
    for (long id = 1; id <= 3; id++)
      request(id);
    sleep_ms(40);
    for (long id = 1; id <= 3; id++)
      reply(id, 0);
    section_begin();
    section_end();
    sleep_ms(150); /* nothing armed: nothing fires */
    puts("ok done");
  } else if (!strcmp(mode, "late")) {
    puts("sleeping");
    request(7);
    sleep_ms(400);
    puts("woke");
    reply(7, 0); /* the instance was reset by the violation: ignored */
  } else if (!strcmp(mode, "timing")) {
    vigil_set_handler(on_violation, NULL);
    request(12);
    sleep_ms(400);
    printf("reported %s, %s\n", late_by < 0 ? "never" : "during the sleep",
           late_by >= 0 && late_by < 50000000 ? "within 50 ms of the deadline" : "late");
  } else if (!strcmp(mode, "early")) {
    request(9);
    reply(9, 0); /* within 20 ms of the request */
  } else if (!strcmp(mode, "status")) {
    request(10);
    sleep_ms(40);
    reply(10, -5);
  } else if (!strcmp(mode, "exit")) {
    request(11);
    puts("exiting");
  } else if (!strcmp(mode, "threads")) {
    printf("timers before: %d\n", timers());
    pthread_t t;
    pthread_create(&t, NULL, late_section, NULL);
    pthread_join(t, NULL);
    printf("timers after: %d\n", timers());
  }
  return 0;
}

// OK-NOT: vigil: monitor violation
// OK: ok done
// OK-NOT: vigil: monitor violation

// LATE: sleeping
// LATE-NEXT: vigil: monitor violation: request ({{.*}}request.bind)
// LATE-NEXT:   model request ({{.*}}request.dot), scope object
// LATE-NEXT:   reason:   invariant `clk < deadline` expired in state waiting (monitor-invariant)
// LATE-NEXT:   event:    time passed
// LATE-NEXT:   state:    waiting
// LATE-NEXT:   invariant: clk < deadline (request.dot:10)
// LATE-NEXT:   values:   key = 7, expired at = {{[0-9]+}} ns
// LATE-NEXT:   allowed:  reply
// LATE-NEXT:   picture:  vigil render {{.*}}request.dot
// LATE-NEXT:   thread:   {{[0-9]+}} (vigil-timer)
// LATE-NEXT: woke
// LATE-NOT: vigil: monitor violation

// EARLY: vigil: monitor violation: request
// EARLY-NEXT:   model request
// EARLY-NEXT:   reason:   guard `clk >= 20ms && status >= 0` is false for event reply in state waiting (monitor-guard)
// EARLY-NEXT:   event:    reply <- call:reply key=arg0 (request.bind:10)
// EARLY-NEXT:   state:    waiting
// EARLY-NEXT:   guard:    clk >= 20ms && status >= 0 (request.dot:12)
// EARLY-NEXT:   values:   key = 9
// EARLY-NEXT:   allowed:  reply
// EARLY-NEXT:   picture:  vigil render {{.*}}request.dot --highlight waiting:reply
// EARLY-NEXT:   thread:   {{[0-9]+}} (monitor-clock
// EARLY-NEXT:   backtrace:
// EARLY-NEXT:     #0 {{.*}}reply
// EARLY-NEXT:     #1 {{.*}}main

// ABORT: sleeping
// ABORT-NEXT: vigil: monitor violation: request
// ABORT: thread: {{[0-9]+}} (vigil-timer)
// ABORT-NEXT: vigil: aborting
// ABORT-NOT: woke

// TIMING: reported during the sleep, within 50 ms of the deadline

// STATUS: reason:   guard `clk >= 20ms && status >= 0` is false for event reply in state waiting (monitor-guard)
// STATUS: values:   key = 10

// EXIT: exiting
// EXIT-NEXT: vigil: monitor violation: request
// EXIT: reason:   the program exited in state waiting, which is not final (not-final-at-exit)
// EXIT: values:   key = 11

// THREADS: timers before: 0
// THREADS-NEXT: vigil: monitor violation: section ({{.*}}section.bind)
// THREADS-NEXT:   model section ({{.*}}section.dot), scope task
// THREADS-NEXT:   reason:   invariant `clk < 20ms` expired in state in (monitor-invariant)
// THREADS-NEXT:   event:    time passed
// THREADS-NEXT:   state:    in
// THREADS-NEXT:   invariant: clk < 20ms (section.dot:7)
// THREADS-NEXT:   values:   key = [[TID:[0-9]+]], expired at = {{[0-9]+}} ns
// THREADS-NEXT: allowed:  section_end
// THREADS-NEXT: picture:  vigil render {{.*}}section.dot
// THREADS-NEXT: thread:   {{[0-9]+}} (vigil-timer)
// THREADS-NEXT: section thread woke
// THREADS-NEXT: vigil: monitor violation: section
// THREADS:      reason:   event section_end is not allowed in state out (monitor-invalid-event)
// THREADS:      values:   key = [[TID]]
// THREADS:      thread:   [[TID]] (sectioner)
// THREADS:      vigil: monitor violation: section
// THREADS:      reason:   the thread exited in state in, which is not final (not-final-at-exit)
// THREADS:      values:   key = [[TID]]
// THREADS:      timers after: 1
// THREADS-NOT:  vigil: monitor violation

// Time passed, no event: no rule fired, no task caused it (the timer
// thread reports), and the time is when the invariant expired.
// JSON: {"type":"violation","engine":"process","model":"request","kind":"invariant","state":"waiting","event":"none","allowed":["reply"],"scope":"object","key":{"field":null,"value":7},"rule":null,"source":null,"time_ns":{{[0-9]+}},"pid":null,"tgid":{{[0-9]+}},"cpu":null,"comm":null,"monitor":"request",{{.*}}"reason":"monitor-invariant","explanation":"invariant `clk < deadline` expired in state waiting","constraint":"clk < deadline","constraint_at":"{{.*}}request.dot:10","render":"vigil render {{.*}}request.dot","backtrace":
// JSON-NOT: "reason"
// CORE: process: 1 violation(s), core keys ok
