/*
 * Benchmark B — benchmark A with an optional event after the site.
 *
 * Table 5.1 row B:  events 4 | static 3 | non-static 1 | optional 1 | OR-ed 0 |
 *                   OR-ed automata 0 | called before 1 | called after 3
 * This assertion:   the same (exact match).
 *   static:      call(callOne), optional(call(callThree)), call(callTwo)
 *   non-static:  call(callArgs(i, ANY(ptr), 3))
 *   optional:    callThree
 *   before:      callOne(1)
 *   after:       callArgs(i, NULL, 3), callThree(3) (the optional one, taken), callTwo(2)
 */
#include "common.h"

#ifdef VARIANT_HAND
/* st: 0 entered, 1 callOne, 2 site (cap = i), 3 callArgs(cap,*,3),
 *     4 callThree (optional), 5 callTwo (done). */
HAND_STORAGE struct { int st, cap; } h;
#define HAND_ENTER() (h.st = 0)
#define HAND_callOne(x) do { if (h.st == 0) h.st = 1; } while (0)
#define HAND_SITE(i) do { if (h.st != 1) HAND_FAIL(); h.st = 2; h.cap = (i); } while (0)
#define HAND_callArgs(a, p, c) do { if (h.st == 2 && (a) == h.cap && (c) == 3) h.st = 3; } while (0)
#define HAND_callThree(x) do { if (h.st == 3) h.st = 4; else if (h.st == 2) HAND_FAIL(); } while (0)
#define HAND_callTwo(x) do { if (h.st == 3 || h.st == 4) h.st = 5; else if (h.st == 2) HAND_FAIL(); } while (0)
#define HAND_EXIT() do { if (h.st >= 2 && h.st != 5) HAND_FAIL(); } while (0)
#endif

#include "events.h"

NOINLINE void examplecall(int i) {
  BOUND_ENTER(i);
  WORK();
  callOne(1);
  SITE_REACHED(i);
  BENCH_ASSERT(TSEQUENCE(
      call(callOne),
      TESLA_ASSERTION_SITE,
      call(callArgs(i, ANY(ptr), 3)),
      optional(call(callThree)),
      call(callTwo)));
  callArgs(i, NULL, 3);
  callThree(3);
  BREAKABLE(callTwo(2));
  BOUND_EXIT(i);
}

#include "main.h"
