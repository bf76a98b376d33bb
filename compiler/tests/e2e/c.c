#include <tesla.h>
#include <stddef.h>
#include <stdbool.h>
enum color { RED, GREEN = 5 };
struct s { int a; };
int take_char(signed char c) { return c; }
void *find(void *p, long n) { return n < 0 ? NULL : p; }
bool flag(enum color c) { return c == GREEN; }
void lock(int id) {}
void unlock(int id) {}
int never(int x);
int use_struct(struct s v) { return v.a; }
void start(void) {}
void stop(void) {}

void f(int n, void *p) {
  signed char c = -3;
  take_char(c);
  find(p, -1);
  flag(GREEN);
  lock(n);
  TESLA_GLOBAL(call(start), returnfrom(stop), strict(
      TSEQUENCE(take_char(c) == -3, find(p, ANY(long)) == NULL,
                caller(flag(GREEN) == true) || call(lock(n)),
                TESLA_ASSERTION_SITE, optional(call(unlock(n))))
      || previously(call(never(ANY(int))))));
  unlock(n);
}
int main(void) {
  int x;
  start();
  f(42, &x);
  stop();
  return 0;
}

/* Expected stub output (check.sh runs FileCheck on this file):
CHECK: assertion id=0 {{.*}}c.c:22:3 {{.*}} locality=1 mode=2 nalts=2 ncaptures=3
CHECK: ev 3 kind=3 fn=flag text="flag(GREEN) == true" succ=0x30 or=0x10 flags=0x32 nvalues=2
CHECK: ev 6 kind=2 fn=unlock text="call(unlock(n))" succ=0x80 or=0 flags=0xd nvalues=1
CHECK: bound_start a=0 aligned=1
CHECK-NEXT: event a=0 alt=0 ev=1 "take_char(c) == -3" values: 0xfd 0xfffffffd
CHECK-NEXT: event a=0 alt=0 ev=2 "find(p, ANY(long)) == NULL" values: [[P:0x[0-9a-f]+]] 0xffffffffffffffff 0
CHECK-NEXT: event a=0 alt=0 ev=3 "flag(GREEN) == true" values: 0x5 0x1
CHECK-NEXT: event a=0 alt=0 ev=4 "call(lock(n))" values: 0x2a
CHECK-NEXT: site a=0 captures: 0xfd [[P]] 0x2a
CHECK-NEXT: event a=0 alt=0 ev=6 "call(unlock(n))" values: 0x2a
CHECK-NEXT: bound_end a=0
*/
