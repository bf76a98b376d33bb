// Which states an inline hook tests before its table or switch (issue 15,
// compiler/pass/Hooks.cpp likelyRank): the events of a passing program
// need not come in the order of the one shortest path from the start.
// Here an OR block before the site (either member first, or both), an
// optional event, a captured value and an OR block after the site (benchmarks
// C-F).  The site's hook tests the three states the events before it can
// leave (after one, after four, after the optional three) one by one, then
// switches on a volatile reload; the optional event's hook tests the state
// it leaves sideways (after one); the OR blocks' other members (four,
// five) go straight to the table: a program calling both members takes
// the second where the row ignores it.
// RUN: %clang-vigil -flto=full -O1 -c %s -o %t.bc
// RUN: env VIGIL_FAST_PATH=1 opt -load-pass-plugin=%vigil-pass -passes=vigil-instrument %t.bc -S -o %t.ll
// RUN: FileCheck %s --check-prefix=SITE < %t.ll
// RUN: FileCheck %s --check-prefix=ONE < %t.ll
// RUN: FileCheck %s --check-prefix=THREE < %t.ll
// RUN: FileCheck %s --check-prefix=FOUR < %t.ll
// RUN: FileCheck %s --check-prefix=FIVE < %t.ll
// Whatever state a hook tests first, the verdicts, reports and counts are
// the runtime's (a build with every hook a runtime call), in every order,
// per-thread and global (g):
// RUN: env VIGIL_FAST_PATH=1 %vigil-cc -O2 %s -o %t
// RUN: env VIGIL_FAST_PATH=0 %vigil-cc -O2 %s -o %t.slow
// RUN: %python %S/Inputs/same.py %t %t.slow 1sa2 1sa5 1sa25 4sa5 413sa5 143sa25 13sa2 43sa52 31sa2 3s 1s5 s 1sa 4sb5 1sab2 1s1a2 g413sa5 g143sa25 g13sa2 g1s5 g4sb5 | FileCheck %s --check-prefix=SAME
#include <stdio.h>
#include <tesla.h>

void one(int v) { (void)v; }
void two(int v) { (void)v; }
void three(int v) { (void)v; }
void four(int v) { (void)v; }
void five(int v) { (void)v; }
void args(int a, void *p, int c) { (void)a; (void)p; (void)c; }
static const char *script;
void run(int i);

void site(int i) {
  TESLA_WITHIN(run, TSEQUENCE(call(one) || call(four), optional(call(three)),
                              TESLA_ASSERTION_SITE, call(args(i, ANY(ptr), 3)),
                              call(two) || call(five)));
}
// The same, global (its hooks: the same body under the bound's lock).
void run_g(int i);
void site_g(int i) {
  TESLA_GLOBAL(call(run_g), returnfrom(run_g),
               TSEQUENCE(call(one) || call(four), optional(call(three)),
                         TESLA_ASSERTION_SITE, call(args(i, ANY(ptr), 3)),
                         call(two) || call(five)));
}

static void step(char c, int i) {
  switch (c) {
  case '1': one(1); break;
  case '2': two(2); break;
  case '3': three(3); break;
  case '4': four(4); break;
  case '5': five(5); break;
  case 'a': args(i, 0, 3); break;
  case 'b': args(i + 1, 0, 3); break;
  }
}
void run(int i) {
  for (const char *p = script; *p; p++)
    if (*p == 's')
      site(i);
    else
      step(*p, i);
}
void run_g(int i) {
  for (const char *p = script; *p; p++)
    if (*p == 's')
      site_g(i);
    else
      step(*p, i);
}

int main(int argc, char **argv) {
  script = argv[1] + (argv[1][0] == 'g'); // g: the global assertion
  for (int i = 0; i < 3; i++) {
    if (argv[1][0] == 'g')
      run_g(i);
    else
      run(i);
  }
  puts("done");
  return 0;
}
// SITE-LABEL: define internal void @__vigil_fast_site.0(
// SITE: icmp eq i8 %fast, 2
// SITE: unlikely:
// SITE-NEXT: %[[R:fast.again[0-9]*]] = load volatile i8
// SITE-NEXT: icmp eq i8 %[[R]], 3
// SITE: icmp eq i8 %[[R]], 5
// SITE: load volatile i8
// SITE: switch i8
// ONE-LABEL: define internal void @__vigil_fast_event.0.3(
// ONE: icmp eq i8 %fast, 1
// ONE: load volatile i8
// THREE-LABEL: define internal void @__vigil_fast_event.0.5(
// THREE: icmp eq i8 %fast, 2
// THREE-NEXT: br i1 %{{.*}}, label %hot, label %unlikely
// THREE: hot:
// THREE-NEXT: store i8 5
// FOUR-LABEL: define internal void @__vigil_fast_event.0.4(
// FOUR-NOT: icmp eq i8 %fast,
// FOUR: icmp eq i8 %fast.next{{[0-9]*}}, 0
// FOUR: }
// FIVE-LABEL: define internal void @__vigil_fast_event.0.8(
// FIVE-NOT: icmp eq i8 %fast,
// FIVE: icmp eq i8 %fast.next{{[0-9]*}}, 0
// FIVE: }
// SAME: 1sa2: passes 3 failures 0
// SAME-NEXT: 1sa5: passes 3 failures 0
// SAME-NEXT: 1sa25: passes 3 failures 0
// SAME-NEXT: 4sa5: passes 3 failures 0
// SAME-NEXT: 413sa5: passes 3 failures 0
// SAME-NEXT: 143sa25: passes 3 failures 0
// SAME-NEXT: 13sa2: passes 3 failures 0
// SAME-NEXT: 43sa52: passes 3 failures 0
// SAME-NEXT: 31sa2: passes 3 failures 0
// SAME-NEXT: 3s: passes 0 failures 3
// SAME-NEXT: 1s5: passes 0 failures 3
// SAME-NEXT: s: passes 0 failures 3
// SAME-NEXT: 1sa: passes 0 failures 3
// SAME-NEXT: 4sb5: passes 0 failures 3
// SAME-NEXT: 1sab2: passes 3 failures 0
// SAME-NEXT: 1s1a2: passes 3 failures 0
// SAME-NEXT: g413sa5: passes 3 failures 0
// SAME-NEXT: g143sa25: passes 3 failures 0
// SAME-NEXT: g13sa2: passes 3 failures 0
// SAME-NEXT: g1s5: passes 0 failures 3
// SAME-NEXT: g4sb5: passes 0 failures 3
