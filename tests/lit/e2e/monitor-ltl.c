// An LTL model in process: `always (LOCKED imply not BLOCKING)` per thread
// (Inputs/monitor/nosleep.ltl): the hooks set and pulse the atoms, the
// runtime steps the Büchi automaton (vk_ltl.h) on the thread's instance.
// RUN: %vigil-cc --vigil-monitor=%S/Inputs/monitor/nosleep.bind -O1 %s -o %t 2>&1 | FileCheck %s --check-prefix=BUILD --allow-empty
// RUN: env VIGIL_ON_FAILURE=log %t ok 2>&1 | FileCheck %s --check-prefix=OK
// RUN: env VIGIL_ON_FAILURE=log VIGIL_BACKTRACE=0 %t bad 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: rm -f %t.jsonl
// RUN: env VIGIL_ON_FAILURE=log VIGIL_REPORT=%t.jsonl %t bad
// RUN: FileCheck %s --check-prefix=JSON < %t.jsonl
// RUN: %python %root/tests/lit/report/inputs/core_keys.py %t.jsonl | FileCheck %s --check-prefix=CORE
#include <stdio.h>
#include <string.h>

// BUILD-NOT: warning
// BUILD-NOT: error

__attribute__((noinline)) void grab(void) { __asm__ volatile(""); }
__attribute__((noinline)) void release(void) { __asm__ volatile(""); }
__attribute__((noinline)) void block(void) { __asm__ volatile(""); }

int main(int argc, char **argv) {
  int bad = argc > 1 && !strcmp(argv[1], "bad");
  /* every atom gets a value: the monitor starts (LOCKED false) */
  grab();
  release();
  block();
  /* the rule: blocking only with the lock released */
  grab();
  if (bad)
    block(); /* line 29: LOCKED and BLOCKING */
  release();
  block();
  printf("done\n");
  return 0;
}
// OK-NOT: violation
// OK: done

// BAD: vigil: monitor violation: nosleep (
// BAD: no state of the automaton holds after BLOCKING in state S0
// BAD: done
// JSON: {"type":"violation","engine":"process","model":"nosleep","kind":"ltl","state":"S0","event":"BLOCKING","allowed":[],"scope":"task",
// JSON-SAME: "reason":"monitor-ltl"
// CORE: process: 1 violation(s), core keys ok
