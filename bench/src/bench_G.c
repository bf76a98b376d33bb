/*
 * Benchmark G — two non-static events in an OR block before the site.
 *
 * Table 5.1 row G:  events 4 | static 2 | non-static 2 | optional 0 | OR-ed 2 |
 *                   OR-ed automata 0 | called before 4 | called after 1
 * This assertion:   the same (exact match).
 *   static:      call(callOne), call(callTwo)
 *   non-static:  call(callArgs(i, ANY(ptr), 3)), call(callVal(i))
 *   OR-ed:       callArgs(i, ANY(ptr), 3) || callVal(i)
 *   before:      callOne(1), callVal(i + 1), callArgs(i, NULL, 3), callVal(i)
 *   after:       callTwo(2)
 * Four calls before the site but only three pre-site events: the row needs
 * one more call than there are events.  The extra call, callVal(i + 1), is an
 * occurrence of a non-static event with a value other than the captured one:
 * the automaton must record it and then ignore it (trace [A b B C S D] in the
 * notation of docs/assertion-language.md).
 * -DBREAK omits callTwo(2) (missing-after-site).
 */
#include "common.h"

#ifdef VARIANT_HAND
/* st: 0 entered, 1 callOne seen, 2 site passed, 3 callTwo (done).  After
 * callOne the OR members' latest values are kept (fa/va, fv/vv); the site
 * compares them with i.  Keeping the latest value (not a set) is all this
 * bound needs: the noise call comes before the matching one. */
HAND_STORAGE struct { int st, fa, va, fv, vv; } h;
#define HAND_ENTER() do { h.st = 0; h.fa = 0; h.fv = 0; } while (0)
#define HAND_callOne(x) do { if (h.st == 0) h.st = 1; } while (0)
#define HAND_callArgs(a, p, c) do { if (h.st == 1 && (c) == 3) { h.fa = 1; h.va = (a); } } while (0)
#define HAND_callVal(x) do { if (h.st == 1) { h.fv = 1; h.vv = (x); } } while (0)
#define HAND_SITE(i)                                                           \
  do {                                                                         \
    if (h.st != 1 || !((h.fa && h.va == (i)) || (h.fv && h.vv == (i))))        \
      HAND_FAIL();                                                             \
    h.st = 2;                                                                  \
  } while (0)
#define HAND_callTwo(x) do { if (h.st == 2) h.st = 3; } while (0)
#define HAND_EXIT() do { if (h.st == 2) HAND_FAIL(); } while (0)
#endif

#include "events.h"

NOINLINE void examplecall(int i) {
  BOUND_ENTER(i);
  WORK();
  callOne(1);
  callVal(i + 1); /* another value: ignored by the automaton */
  callArgs(i, NULL, 3);
  callVal(i);
  SITE_REACHED(i);
  BENCH_ASSERT(TSEQUENCE(
      call(callOne),
      call(callArgs(i, ANY(ptr), 3)) || call(callVal(i)),
      TESLA_ASSERTION_SITE,
      call(callTwo)));
  BREAKABLE(callTwo(2));
  BOUND_EXIT(i);
}

#include "main.h"
