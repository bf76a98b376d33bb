/*
 * Benchmark I — two top-level OR-ed automata, all events static.
 *
 * Table 5.1 row I:  events 6 | static 6 | non-static 0 | optional 0 | OR-ed 0 |
 *                   OR-ed automata 2 | called before 1 | called after 2
 * This assertion:   the same (exact match).
 *   alternative 1:  callOne, SITE, callTwo, callThree
 *   alternative 2:  callFour, callFive, SITE, callSix
 *   before:         callOne(1)          after: callTwo(2), callThree(3)
 * Alternative 1 holds; alternative 2 fails at the site (missing-before-site),
 * which is allowed: the assertion fails only if no alternative holds.
 * -DBREAK omits callThree(3): alternative 1 fails too (no-alternative-held).
 */
#include "common.h"

#ifdef VARIANT_HAND
/* a1, a2: position in each alternative's sequence (-1: failed); site: the
 * site was reached.  At the end of the bound one alternative must be done. */
HAND_STORAGE struct { signed char a1, a2, site; } h;
#define HAND_ENTER() do { h.a1 = 0; h.a2 = 0; h.site = 0; } while (0)
#define HAND_callOne(x) do { if (h.a1 == 0) h.a1 = 1; } while (0)
#define HAND_callFour(x) do { if (h.a2 == 0) h.a2 = 1; } while (0)
#define HAND_callFive(x) do { if (h.a2 == 1) h.a2 = 2; } while (0)
#define HAND_SITE(i)                                                           \
  do {                                                                         \
    h.site = 1;                                                                \
    h.a1 = h.a1 == 1 ? 2 : -1;                                                 \
    h.a2 = h.a2 == 2 ? 3 : -1;                                                 \
  } while (0)
#define HAND_callTwo(x) do { if (h.a1 == 2) h.a1 = 3; } while (0)
#define HAND_callThree(x) do { if (h.a1 == 3) h.a1 = 4; } while (0)
#define HAND_callSix(x) do { if (h.a2 == 3) h.a2 = 4; } while (0)
#define HAND_EXIT() do { if (h.site && h.a1 != 4 && h.a2 != 4) HAND_FAIL(); } while (0)
#endif

#include "events.h"

NOINLINE void examplecall(int i) {
  BOUND_ENTER(i);
  WORK();
  callOne(1);
  SITE_REACHED(i);
  BENCH_ASSERT(
      TSEQUENCE(call(callOne), TESLA_ASSERTION_SITE, call(callTwo), call(callThree)) ||
      TSEQUENCE(call(callFour), call(callFive), TESLA_ASSERTION_SITE, call(callSix)));
  callTwo(2);
  BREAKABLE(callThree(3));
  BOUND_EXIT(i);
}

#include "main.h"
