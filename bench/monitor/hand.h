/*
 * hand.h — the floor an in-process monitor is measured against: the same
 * model written by hand as a switch-based state machine, advanced exactly
 * where vigil's hooks fire, abort() on an event the model does not allow.
 * bench/monitor/run.py builds txn.c and mtx.c with one of:
 *
 *   HAND_THREAD  txn.dot per thread: a `static __thread` state;
 *   HAND_GLOBAL  txn.dot, one instance for the program: a global state
 *                word changed by compare-and-swap (the cheapest thread-safe
 *                form; a mutex around the switch costs an uncontended
 *                lock/unlock pair more);
 *   HAND_OBJECT  mutex.dot per mutex: the state next to the mutex it
 *                describes (what one writes by hand; vigil cannot change
 *                the program's types and keys its instances in a table).
 *
 * Without any of them it defines nothing and the programs are plain.
 */
#ifndef BENCH_MONITOR_HAND_H
#define BENCH_MONITOR_HAND_H
#include <stdlib.h>

/* txn.dot: idle (initial, final) -begin-> open -commit|abort-> idle */
enum { TXN_IDLE, TXN_OPEN };
enum { TXN_BEGIN, TXN_COMMIT, TXN_ABORT };

static inline int txn_next(int state, int event) {
  switch (state) {
  case TXN_IDLE:
    if (event == TXN_BEGIN)
      return TXN_OPEN;
    break;
  case TXN_OPEN:
    if (event == TXN_COMMIT || event == TXN_ABORT)
      return TXN_IDLE;
    break;
  }
  abort(); /* the event is not allowed in this state */
}

#if defined(HAND_THREAD)
static __thread int txn_state;
#define TXN_STEP(event) (txn_state = txn_next(txn_state, (event)))
#elif defined(HAND_GLOBAL)
static int txn_state;
#define TXN_STEP(event)                                                                  \
  do {                                                                                   \
    int from_ = __atomic_load_n(&txn_state, __ATOMIC_RELAXED);                           \
    while (!__atomic_compare_exchange_n(&txn_state, &from_, txn_next(from_, (event)), 1, \
                                        __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))             \
      ;                                                                                  \
  } while (0)
#else
#define TXN_STEP(event) ((void)0)
#endif

/* mutex.dot: unlocked (initial, final) -lock-> locked -unlock-> unlocked;
 * destroy (forget) in a state that is not final is a violation. */
enum { MTX_UNLOCKED, MTX_LOCKED };
enum { MTX_LOCK, MTX_UNLOCK };

static inline int mtx_next(int state, int event) {
  switch (state) {
  case MTX_UNLOCKED:
    if (event == MTX_LOCK)
      return MTX_LOCKED;
    break;
  case MTX_LOCKED:
    if (event == MTX_UNLOCK)
      return MTX_UNLOCKED;
    break;
  }
  abort();
}

#if defined(HAND_OBJECT)
/* the state is changed while the mutex is held (after lock, before
 * unlock), so the mutex itself orders it */
#define MTX_STEP(state, event) ((state) = mtx_next((state), (event)))
#define MTX_FORGET(state) ((state) == MTX_UNLOCKED ? (void)0 : abort())
#else
#define MTX_STEP(state, event) ((void)0)
#define MTX_FORGET(state) ((void)0)
#endif

#endif
