/*
 * or_blocks.h — the assertion and hand-written check shared by benchmarks
 * C, D, E and F (Table 5.1 gives them the same assertion; they differ only
 * in the events the bound calls).  A benchmark defines CALLS_BEFORE() (the
 * events before the site) and CALLS_AFTER() (the post-site OR block's
 * members it calls after callArgs), then includes this file.
 *
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
  CALLS_BEFORE();
  SITE_REACHED(i);
  BENCH_ASSERT(TSEQUENCE(
      call(callOne) || call(callFour),
      optional(call(callThree)),
      TESLA_ASSERTION_SITE,
      call(callArgs(i, ANY(ptr), 3)),
      call(callTwo) || call(callFive)));
  BREAKABLE(callArgs(i, NULL, 3));
  CALLS_AFTER();
  BOUND_EXIT(i);
}

#include "main.h"
