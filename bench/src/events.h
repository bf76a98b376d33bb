/*
 * events.h — the event functions of the microbenchmarks.  Each is empty
 * apart from its hooks:
 *   TP(name, args)       LTTng-UST tracepoint (VARIANT_LTTNG only)
 *   HAND_<name>(args)    the hand-written check's transition (VARIANT_HAND only;
 *                        a benchmark defines the hooks it needs before including
 *                        this file, the others default to nothing and, under
 *                        HAND_LOCKED, take no lock: the check is not there)
 * and an empty asm statement, so that neither the function nor its calls are
 * removed.  noinline: vigil instruments them callee side (at entry).
 * neverOne/neverTwo/neverArgs are never called (inactive-assertion sweep).
 */
#ifndef VIGIL_BENCH_EVENTS_H
#define VIGIL_BENCH_EVENTS_H

#ifndef HAND_callOne
#define HAND_callOne(x) ((void)0)
#define HAND_UNUSED_callOne
#endif
NOINLINE void callOne(int x) {
  TP(callOne, x);
#ifndef HAND_UNUSED_callOne
  HAND(HAND_callOne(x));
#endif
  BARRIER();
}

#ifndef HAND_callTwo
#define HAND_callTwo(x) ((void)0)
#define HAND_UNUSED_callTwo
#endif
NOINLINE void callTwo(int x) {
  TP(callTwo, x);
#ifndef HAND_UNUSED_callTwo
  HAND(HAND_callTwo(x));
#endif
  BARRIER();
}

#ifndef HAND_callThree
#define HAND_callThree(x) ((void)0)
#define HAND_UNUSED_callThree
#endif
NOINLINE void callThree(int x) {
  TP(callThree, x);
#ifndef HAND_UNUSED_callThree
  HAND(HAND_callThree(x));
#endif
  BARRIER();
}

#ifndef HAND_callFour
#define HAND_callFour(x) ((void)0)
#define HAND_UNUSED_callFour
#endif
NOINLINE void callFour(int x) {
  TP(callFour, x);
#ifndef HAND_UNUSED_callFour
  HAND(HAND_callFour(x));
#endif
  BARRIER();
}

#ifndef HAND_callFive
#define HAND_callFive(x) ((void)0)
#define HAND_UNUSED_callFive
#endif
NOINLINE void callFive(int x) {
  TP(callFive, x);
#ifndef HAND_UNUSED_callFive
  HAND(HAND_callFive(x));
#endif
  BARRIER();
}

#ifndef HAND_callSix
#define HAND_callSix(x) ((void)0)
#define HAND_UNUSED_callSix
#endif
NOINLINE void callSix(int x) {
  TP(callSix, x);
#ifndef HAND_UNUSED_callSix
  HAND(HAND_callSix(x));
#endif
  BARRIER();
}

#ifndef HAND_callSeven
#define HAND_callSeven(x) ((void)0)
#define HAND_UNUSED_callSeven
#endif
NOINLINE void callSeven(int x) {
  TP(callSeven, x);
#ifndef HAND_UNUSED_callSeven
  HAND(HAND_callSeven(x));
#endif
  BARRIER();
}

#ifndef HAND_callEight
#define HAND_callEight(x) ((void)0)
#define HAND_UNUSED_callEight
#endif
NOINLINE void callEight(int x) {
  TP(callEight, x);
#ifndef HAND_UNUSED_callEight
  HAND(HAND_callEight(x));
#endif
  BARRIER();
}

#ifndef HAND_callNine
#define HAND_callNine(x) ((void)0)
#define HAND_UNUSED_callNine
#endif
NOINLINE void callNine(int x) {
  TP(callNine, x);
#ifndef HAND_UNUSED_callNine
  HAND(HAND_callNine(x));
#endif
  BARRIER();
}

#ifndef HAND_callVal
#define HAND_callVal(x) ((void)0)
#define HAND_UNUSED_callVal
#endif
NOINLINE void callVal(int x) {
  TP(callVal, x);
#ifndef HAND_UNUSED_callVal
  HAND(HAND_callVal(x));
#endif
  BARRIER();
}

#ifndef HAND_callKey
#define HAND_callKey(x) ((void)0)
#define HAND_UNUSED_callKey
#endif
NOINLINE void callKey(int x) {
  TP(callKey, x);
#ifndef HAND_UNUSED_callKey
  HAND(HAND_callKey(x));
#endif
  BARRIER();
}

#ifndef HAND_neverOne
#define HAND_neverOne(x) ((void)0)
#define HAND_UNUSED_neverOne
#endif
NOINLINE void neverOne(int x) {
  TP(neverOne, x);
#ifndef HAND_UNUSED_neverOne
  HAND(HAND_neverOne(x));
#endif
  BARRIER();
}

#ifndef HAND_neverTwo
#define HAND_neverTwo(x) ((void)0)
#define HAND_UNUSED_neverTwo
#endif
NOINLINE void neverTwo(int x) {
  TP(neverTwo, x);
#ifndef HAND_UNUSED_neverTwo
  HAND(HAND_neverTwo(x));
#endif
  BARRIER();
}

#ifndef HAND_callArgs
#define HAND_callArgs(a, p, c) ((void)0)
#define HAND_UNUSED_callArgs
#endif
NOINLINE void callArgs(int a, void *p, int c) {
  TP(callArgs, a, p, c);
#ifndef HAND_UNUSED_callArgs
  HAND(HAND_callArgs(a, p, c));
#endif
  BARRIER();
}

#ifndef HAND_neverArgs
#define HAND_neverArgs(a, p, c) ((void)0)
#define HAND_UNUSED_neverArgs
#endif
NOINLINE void neverArgs(int a, void *p, int c) {
  TP(neverArgs, a, p, c);
#ifndef HAND_UNUSED_neverArgs
  HAND(HAND_neverArgs(a, p, c));
#endif
  BARRIER();
}

#endif /* VIGIL_BENCH_EVENTS_H */
