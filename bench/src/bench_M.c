/*
 * Benchmark M — three top-level OR-ed automata, all static, an optional event
 * and an OR block.
 *
 * Table 5.1 row M:  events 9 | static 9 | non-static 0 | optional 1 | OR-ed 2 |
 *                   OR-ed automata 3 | called before 2 | called after 1
 * This assertion:   the same (exact match).
 *   alternative 1:  callOne, optional(callTwo), SITE, callThree
 *   alternative 2:  callFour || callFive, SITE, callSix
 *   alternative 3:  callSeven, callEight, SITE, callNine
 *   before:         callOne(1), callTwo(2) (the optional one, taken)   after: callThree(3)
 * (L exercises its OR block; M exercises its optional event.)
 * -DBREAK omits callThree(3) (no-alternative-held).
 */
#include "common.h"

#ifdef VARIANT_HAND
HAND_STORAGE struct { signed char a1, a2, a3, site; } h;
#define HAND_ENTER() do { h.a1 = 0; h.a2 = 0; h.a3 = 0; h.site = 0; } while (0)
#define HAND_callOne(x) do { if (h.a1 <= 2) h.a1 = 1; } while (0)
#define HAND_callTwo(x) do { if (h.a1 == 1) h.a1 = 2; } while (0)
#define HAND_callFour(x) do { if (h.a2 == 0) h.a2 = 1; } while (0)
#define HAND_callFive(x) do { if (h.a2 == 0) h.a2 = 1; } while (0)
#define HAND_callSeven(x) do { if (h.a3 == 0) h.a3 = 1; } while (0)
#define HAND_callEight(x) do { if (h.a3 == 1) h.a3 = 2; } while (0)
#define HAND_SITE(i)                                                           \
  do {                                                                         \
    h.site = 1;                                                                \
    h.a1 = (h.a1 == 1 || h.a1 == 2) ? 3 : -1;                                  \
    h.a2 = h.a2 == 1 ? 2 : -1;                                                 \
    h.a3 = h.a3 == 2 ? 3 : -1;                                                 \
  } while (0)
#define HAND_callThree(x) do { if (h.a1 == 3) h.a1 = 4; } while (0)
#define HAND_callSix(x) do { if (h.a2 == 2) h.a2 = 3; } while (0)
#define HAND_callNine(x) do { if (h.a3 == 3) h.a3 = 4; } while (0)
#define HAND_EXIT()                                                            \
  do {                                                                         \
    if (h.site && h.a1 != 4 && h.a2 != 3 && h.a3 != 4)                         \
      HAND_FAIL();                                                             \
  } while (0)
#endif

#include "events.h"

NOINLINE void examplecall(int i) {
  BOUND_ENTER(i);
  WORK();
  callOne(1);
  callTwo(2);
  SITE_REACHED(i);
  BENCH_ASSERT(
      TSEQUENCE(call(callOne), optional(call(callTwo)), TESLA_ASSERTION_SITE,
                call(callThree)) ||
      TSEQUENCE(call(callFour) || call(callFive), TESLA_ASSERTION_SITE, call(callSix)) ||
      TSEQUENCE(call(callSeven), call(callEight), TESLA_ASSERTION_SITE, call(callNine)));
  BREAKABLE(callThree(3));
  BOUND_EXIT(i);
}

#include "main.h"
