#include <tesla.h>
#include <stdio.h>
#include <unistd.h>
int check(int x);
int helper(int x);
int main(int argc, char **argv);
static int work(int x) {
  getpid();
  check(x);
  TESLA_WITHIN(main, previously(check(x) == 0));
  TESLA_WITHIN(main, previously(call(getpid)));
  TESLA_WITHIN(work, eventually(helper(ANY(int)) == 8));
  helper(x);
  return 0;
}
int main(int argc, char **argv) {
  work(7);
  work(3);
  return 0;
}

/* Expected stub output (check.sh runs FileCheck on this file):
CHECK: assertion id=0 {{.*}}a.c:10:3 "TESLA_WITHIN(main, previously(check(x) == 0))" locality=0 mode=0 nalts=1 ncaptures=1
CHECK-NEXT:   capture 0: x
CHECK-NEXT:   alt 0 "previously(check(x) == 0)" nevents=4 site=2 static=0
CHECK-NEXT:     ev 0 kind=0 fn=main text="call(main)" succ=0x2 or=0 flags=0x2 nvalues=0
CHECK-NEXT:     ev 1 kind=3 fn=check text="check(x) == 0" succ=0x4 or=0 flags=0 nvalues=2
CHECK-NEXT:       val 0 text="x" kind=2 ret=0 arg=0 cap=0 const=0
CHECK-NEXT:       val 1 text="0" kind=1 ret=1 arg=0 cap=0 const=0
CHECK-NEXT:     ev 2 kind=4 fn=(null) text="TESLA_ASSERTION_SITE" succ=0x8 or=0 flags=0xa nvalues=0
CHECK-NEXT:     ev 3 kind=1 fn=main text="returnfrom(main)" succ=0 or=0 flags=0x2 nvalues=0
CHECK-NEXT: bound_start a=0 aligned=1
CHECK:      ev 1 kind=2 fn=getpid text="call(getpid)" succ=0x4 or=0 flags=0x22 nvalues=0
CHECK:      bound_start a=1 aligned=1
CHECK:      bound_start a=2 aligned=1
CHECK-NEXT: event a=1 alt=0 ev=1 "call(getpid)" values:
CHECK-NEXT: event a=0 alt=0 ev=1 "check(x) == 0" values: 0x7 0
CHECK-NEXT: site a=0 captures: 0x7
CHECK-NEXT: site a=1 captures:
CHECK-NEXT: site a=2 captures:
CHECK-NEXT: event a=2 alt=0 ev=2 "helper(ANY(int)) == 8" values: 0x7 0x8
CHECK-NEXT: bound_end a=2
CHECK-NEXT: bound_start a=2 aligned=1
CHECK-NEXT: event a=1 alt=0 ev=1 "call(getpid)" values:
CHECK-NOT:  event a=0
CHECK-NEXT: site a=0 captures: 0x3
CHECK-NEXT: site a=1 captures:
CHECK-NEXT: site a=2 captures:
CHECK-NOT:  event a=2
CHECK-NEXT: bound_end a=2
CHECK-NEXT: bound_end a=0
CHECK-NEXT: bound_end a=1
*/
