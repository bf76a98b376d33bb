/*
 * Benchmark H — three non-static events, OR blocks before and after the site.
 *
 * Table 5.1 row H:  events 5 | static 2 | non-static 3 | optional 0 | OR-ed 4 |
 *                   OR-ed automata 0 | called before 4 | called after 2
 * This assertion:   the same (exact match).
 *   static:      call(callOne), call(callTwo)
 *   non-static:  call(callArgs(i, ANY(ptr), 3)), call(callVal(i)), call(callKey(i))
 *   OR-ed:       callOne || callArgs(i, ANY(ptr), 3) (before the site),
 *                callKey(i) || callTwo (after)
 *   before:      callArgs(i + 1, NULL, 3), callOne(1), callArgs(i, NULL, 3), callVal(i)
 *   after:       callKey(i), callTwo(2)
 * Four calls before the site but only three pre-site events: as in G, the
 * extra call callArgs(i + 1, NULL, 3) is a non-static event with another
 * value, which the automaton records and ignores.
 * -DBREAK omits callVal(i) (missing-before-site).
 */
#include "common.h"

#ifdef VARIANT_HAND
/* Before the site: or1 = members of {callOne, callArgs(.,.,3)} seen (bit 0,
 * bit 1; va = latest callArgs value); fv/vv = callVal seen after them.  st: 0
 * before the site, 1 site passed (cap = i), 2 post-site OR block taken. */
HAND_STORAGE struct { int st, or1, va, fv, vv, cap; } h;
#define HAND_ENTER() do { h.st = 0; h.or1 = 0; h.fv = 0; } while (0)
#define HAND_callOne(x) do { if (h.st == 0) h.or1 |= 1; } while (0)
#define HAND_callArgs(a, p, c) do { if (h.st == 0 && (c) == 3) { h.or1 |= 2; h.va = (a); } } while (0)
#define HAND_callVal(x) do { if (h.st == 0 && h.or1) { h.fv = 1; h.vv = (x); } } while (0)
#define HAND_SITE(i)                                                           \
  do {                                                                         \
    if (!(h.fv && h.vv == (i) &&                                               \
          ((h.or1 & 1) || ((h.or1 & 2) && h.va == (i)))))                      \
      HAND_FAIL();                                                             \
    h.st = 1;                                                                  \
    h.cap = (i);                                                               \
  } while (0)
#define HAND_callKey(x) do { if (h.st == 1 && (x) == h.cap) h.st = 2; } while (0)
#define HAND_callTwo(x) do { if (h.st == 1) h.st = 2; } while (0)
#define HAND_EXIT() do { if (h.st == 1) HAND_FAIL(); } while (0)
#endif

#include "events.h"

NOINLINE void examplecall(int i) {
  BOUND_ENTER(i);
  WORK();
  callArgs(i + 1, NULL, 3); /* another value: ignored by the automaton */
  callOne(1);
  callArgs(i, NULL, 3);
  BREAKABLE(callVal(i));
  SITE_REACHED(i);
  BENCH_ASSERT(TSEQUENCE(
      call(callOne) || call(callArgs(i, ANY(ptr), 3)),
      call(callVal(i)),
      TESLA_ASSERTION_SITE,
      call(callKey(i)) || call(callTwo)));
  callKey(i);
  callTwo(2);
  BOUND_EXIT(i);
}

#include "main.h"
