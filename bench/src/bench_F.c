/*
 * Benchmark F — OR blocks before and after the site, an optional event and
 * one non-static event.  C, D, E and F share this assertion: their Table
 * 5.1 rows are identical except for the events called.  F: both pre-site OR
 * members (in the other order), the optional event taken, one post-site OR
 * member.
 *
 * Table 5.1 row F:  events 6 | static 5 | non-static 1 | optional 1 | OR-ed 4 |
 *                   OR-ed automata 0 | called before 3 | called after 2
 * This assertion:   the same (exact match).
 *   static:      call(callOne), call(callFour), optional(call(callThree)),
 *                call(callTwo), call(callFive)
 *   non-static:  call(callArgs(i, ANY(ptr), 3))
 *   optional:    callThree
 *   OR-ed:       callOne || callFour (before the site), callTwo || callFive (after)
 *   before:      callFour(4), callOne(1), callThree(3)
 *   after:       callArgs(i, NULL, 3), callFive(5)
 */
#define CALLS_BEFORE() do { callFour(4); callOne(1); callThree(3); } while (0)
#define CALLS_AFTER() do { callFive(5); } while (0)
#include "or_blocks.h"
