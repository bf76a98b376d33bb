/*
 * Benchmark E — OR blocks before and after the site, an optional event and
 * one non-static event.  C, D, E and F share this assertion: their Table
 * 5.1 rows are identical except for the events called.  E: one member of
 * each OR block, the optional event taken.
 *
 * Table 5.1 row E:  events 6 | static 5 | non-static 1 | optional 1 | OR-ed 4 |
 *                   OR-ed automata 0 | called before 2 | called after 2
 * This assertion:   the same (exact match).
 *   static:      call(callOne), call(callFour), optional(call(callThree)),
 *                call(callTwo), call(callFive)
 *   non-static:  call(callArgs(i, ANY(ptr), 3))
 *   optional:    callThree
 *   OR-ed:       callOne || callFour (before the site), callTwo || callFive (after)
 *   before:      callOne(1), callThree(3)
 *   after:       callArgs(i, NULL, 3), callTwo(2)
 * -DBREAK omits callArgs(i, NULL, 3): the post-site OR block then comes too
 * early (wrong-order).
 */
#include "common.h"

#ifdef VARIANT_HAND
/* st: 0 entered, 1 pre-site OR block {callOne, callFour} taken, 2 optional
 * callThree taken, 3 site (cap = i), 4 callArgs(cap,*,3), 5 post-site OR block
 * {callTwo, callFive} taken (done). */
HAND_STORAGE struct { int st, cap; } h;
#define HAND_ENTER() (h.st = 0)
#define HAND_callOne(x) do { if (h.st <= 2) h.st = 1; } while (0)
#define HAND_callFour(x) do { if (h.st <= 2) h.st = 1; } while (0)
#define HAND_callThree(x) do { if (h.st == 1) h.st = 2; } while (0)
#define HAND_SITE(i) do { if (h.st != 1 && h.st != 2) HAND_FAIL(); h.st = 3; h.cap = (i); } while (0)
#define HAND_callArgs(a, p, c) do { if (h.st == 3 && (a) == h.cap && (c) == 3) h.st = 4; } while (0)
#define HAND_callTwo(x) do { if (h.st == 4) h.st = 5; else if (h.st == 3) HAND_FAIL(); } while (0)
#define HAND_callFive(x) do { if (h.st == 4) h.st = 5; else if (h.st == 3) HAND_FAIL(); } while (0)
#define HAND_EXIT() do { if (h.st >= 3 && h.st != 5) HAND_FAIL(); } while (0)
#endif

#include "events.h"

NOINLINE void examplecall(int i) {
  BOUND_ENTER(i);
  WORK();
  callOne(1);
  callThree(3);
  SITE_REACHED(i);
  BENCH_ASSERT(TSEQUENCE(
      call(callOne) || call(callFour),
      optional(call(callThree)),
      TESLA_ASSERTION_SITE,
      call(callArgs(i, ANY(ptr), 3)),
      call(callTwo) || call(callFive)));
  BREAKABLE(callArgs(i, NULL, 3));
  callTwo(2);
  BOUND_EXIT(i);
}

#include "main.h"
