/*
 * events.h — the event functions of the microbenchmarks.  Each is empty
 * apart from its hooks:
 *   TP(name, args)       LTTng-UST tracepoint (VARIANT_LTTNG only)
 *   HAND_<name>(args)    the hand-written check's transition (VARIANT_HAND only;
 *                        a benchmark defines the hooks it needs before including
 *                        this file, the others default to nothing)
 * and an empty asm statement, so that neither the function nor its calls are
 * removed.  noinline: vigil instruments them callee side (at entry).
 * neverOne/neverTwo/neverArgs are never called (inactive-assertion sweep).
 */
#ifndef VIGIL_BENCH_EVENTS_H
#define VIGIL_BENCH_EVENTS_H

#ifndef HAND_callOne
#define HAND_callOne(x) ((void)0)
#endif
NOINLINE void callOne(int x) {
  TP(callOne, x);
  HAND(HAND_callOne(x));
  BARRIER();
}

#ifndef HAND_callTwo
#define HAND_callTwo(x) ((void)0)
#endif
NOINLINE void callTwo(int x) {
  TP(callTwo, x);
  HAND(HAND_callTwo(x));
  BARRIER();
}

#ifndef HAND_callThree
#define HAND_callThree(x) ((void)0)
#endif
NOINLINE void callThree(int x) {
  TP(callThree, x);
  HAND(HAND_callThree(x));
  BARRIER();
}

#ifndef HAND_callFour
#define HAND_callFour(x) ((void)0)
#endif
NOINLINE void callFour(int x) {
  TP(callFour, x);
  HAND(HAND_callFour(x));
  BARRIER();
}

#ifndef HAND_callFive
#define HAND_callFive(x) ((void)0)
#endif
NOINLINE void callFive(int x) {
  TP(callFive, x);
  HAND(HAND_callFive(x));
  BARRIER();
}

#ifndef HAND_callSix
#define HAND_callSix(x) ((void)0)
#endif
NOINLINE void callSix(int x) {
  TP(callSix, x);
  HAND(HAND_callSix(x));
  BARRIER();
}

#ifndef HAND_callSeven
#define HAND_callSeven(x) ((void)0)
#endif
NOINLINE void callSeven(int x) {
  TP(callSeven, x);
  HAND(HAND_callSeven(x));
  BARRIER();
}

#ifndef HAND_callEight
#define HAND_callEight(x) ((void)0)
#endif
NOINLINE void callEight(int x) {
  TP(callEight, x);
  HAND(HAND_callEight(x));
  BARRIER();
}

#ifndef HAND_callNine
#define HAND_callNine(x) ((void)0)
#endif
NOINLINE void callNine(int x) {
  TP(callNine, x);
  HAND(HAND_callNine(x));
  BARRIER();
}

#ifndef HAND_callVal
#define HAND_callVal(x) ((void)0)
#endif
NOINLINE void callVal(int x) {
  TP(callVal, x);
  HAND(HAND_callVal(x));
  BARRIER();
}

#ifndef HAND_callKey
#define HAND_callKey(x) ((void)0)
#endif
NOINLINE void callKey(int x) {
  TP(callKey, x);
  HAND(HAND_callKey(x));
  BARRIER();
}

#ifndef HAND_neverOne
#define HAND_neverOne(x) ((void)0)
#endif
NOINLINE void neverOne(int x) {
  TP(neverOne, x);
  HAND(HAND_neverOne(x));
  BARRIER();
}

#ifndef HAND_neverTwo
#define HAND_neverTwo(x) ((void)0)
#endif
NOINLINE void neverTwo(int x) {
  TP(neverTwo, x);
  HAND(HAND_neverTwo(x));
  BARRIER();
}

#ifndef HAND_callArgs
#define HAND_callArgs(a, p, c) ((void)0)
#endif
NOINLINE void callArgs(int a, void *p, int c) {
  TP(callArgs, a, p, c);
  HAND(HAND_callArgs(a, p, c));
  BARRIER();
}

#ifndef HAND_neverArgs
#define HAND_neverArgs(a, p, c) ((void)0)
#endif
NOINLINE void neverArgs(int a, void *p, int c) {
  TP(neverArgs, a, p, c);
  HAND(HAND_neverArgs(a, p, c));
  BARRIER();
}

#endif /* VIGIL_BENCH_EVENTS_H */
