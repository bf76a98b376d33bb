/*
 * bound.c — the smallest instrumented bound: bound() calls check() and
 * reaches the site of previously(...).  Built three ways by
 * callgrind-bound.sh: plain clang (the header compiles to nothing), vigil
 * with a static event, vigil with a non-static event (-DNONSTATIC).
 */
#include <stdlib.h>
#include <tesla.h>

volatile int sink; /* keeps the calls from being optimised away */
__attribute__((noinline)) int check(int x) { sink = x; return 0; }
int bound(int i);

__attribute__((noinline)) void site(int i) {
#ifdef NONSTATIC
  TESLA_WITHIN(bound, previously(check(i) == 0));
#else
  TESLA_WITHIN(bound, previously(call(check)));
#endif
  sink = i;
}

__attribute__((noinline)) int bound(int i) {
  check(i);
  site(i);
  return 0;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100000;
  for (int i = 0; i < n; i++)
    bound(i);
  return 0;
}
