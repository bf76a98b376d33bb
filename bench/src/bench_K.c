/*
 * Benchmark K — three top-level OR-ed automata, one non-static event.
 *
 * Table 5.1 row K:  events 9 | static 8 | non-static 1 | optional 0 | OR-ed 0 |
 *                   OR-ed automata 3 | called before 1 | called after 1
 * This assertion:   the same (exact match).
 *   alternative 1:  callOne, SITE, callArgs(i, ANY(ptr), 3)   (non-static)
 *   alternative 2:  callTwo, callThree, SITE, callFour
 *   alternative 3:  callFive, SITE, callSix, callSeven, callEight
 *   before:         callOne(1)          after: callArgs(i, NULL, 3)
 * -DBREAK omits callArgs(i, NULL, 3) (no-alternative-held).
 */
#include "common.h"

#ifdef VARIANT_HAND
HAND_STORAGE struct { signed char a1, a2, a3, site; int cap; } h;
#define HAND_ENTER() do { h.a1 = 0; h.a2 = 0; h.a3 = 0; h.site = 0; } while (0)
#define HAND_callOne(x) do { if (h.a1 == 0) h.a1 = 1; } while (0)
#define HAND_callTwo(x) do { if (h.a2 == 0) h.a2 = 1; } while (0)
#define HAND_callThree(x) do { if (h.a2 == 1) h.a2 = 2; } while (0)
#define HAND_callFive(x) do { if (h.a3 == 0) h.a3 = 1; } while (0)
#define HAND_SITE(i)                                                           \
  do {                                                                         \
    h.site = 1;                                                                \
    h.cap = (i);                                                               \
    h.a1 = h.a1 == 1 ? 2 : -1;                                                 \
    h.a2 = h.a2 == 2 ? 3 : -1;                                                 \
    h.a3 = h.a3 == 1 ? 2 : -1;                                                 \
  } while (0)
#define HAND_callArgs(a, p, c) do { if (h.a1 == 2 && (a) == h.cap && (c) == 3) h.a1 = 3; } while (0)
#define HAND_callFour(x) do { if (h.a2 == 3) h.a2 = 4; } while (0)
#define HAND_callSix(x) do { if (h.a3 == 2) h.a3 = 3; } while (0)
#define HAND_callSeven(x) do { if (h.a3 == 3) h.a3 = 4; } while (0)
#define HAND_callEight(x) do { if (h.a3 == 4) h.a3 = 5; } while (0)
#define HAND_EXIT()                                                            \
  do {                                                                         \
    if (h.site && h.a1 != 3 && h.a2 != 4 && h.a3 != 5)                         \
      HAND_FAIL();                                                             \
  } while (0)
#endif

#include "events.h"

NOINLINE void examplecall(int i) {
  BOUND_ENTER(i);
  WORK();
  callOne(1);
  SITE_REACHED(i);
  BENCH_ASSERT(
      TSEQUENCE(call(callOne), TESLA_ASSERTION_SITE, call(callArgs(i, ANY(ptr), 3))) ||
      TSEQUENCE(call(callTwo), call(callThree), TESLA_ASSERTION_SITE, call(callFour)) ||
      TSEQUENCE(call(callFive), TESLA_ASSERTION_SITE, call(callSix), call(callSeven),
                call(callEight)));
  BREAKABLE(callArgs(i, NULL, 3));
  BOUND_EXIT(i);
}

#include "main.h"
