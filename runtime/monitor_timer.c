/*
 * monitor_timer.c — the timer thread of hybrid monitors: an invariant
 * ("clk < 50ms" on a state) must be reported when its time runs out, not
 * at the instance's next event, which may never come.  One thread per
 * process, started by the first expiry a hybrid monitor arms (a program
 * with plain monitors only never has it), sleeps until the earliest
 * expiry and runs the expiry scan (monitor_hybrid.c).  It is stopped at
 * program exit after one last scan, before the exit checks; a forked child
 * starts its own at its first armed expiry.
 *
 * How it finds the earliest expiry: a lower bound per stripe of each
 * table, and a scan.  The event that arms an expiry lowers its stripe's
 * bound if it is earlier (one compare under the lock it already holds);
 * the timer sleeps until the least bound, then scans the stripes whose
 * bound has passed, firing what expired and making their bounds exact.
 * A min-heap of expiries would wake at exact times, but every armed event
 * would push into it (O(log n) under one more lock, shared by all threads,
 * or a heap per stripe), and an instance that leaves its state in time,
 * the common case, leaves a stale entry behind; the bound costs the event
 * path one compare, and a stale bound only costs the timer one scan of
 * one stripe (1/64 of the instances), about once per bound period.
 *
 * Sleeping and waking: a futex with an absolute CLOCK_MONOTONIC timeout,
 * not a condition variable, because a program may monitor or interpose
 * pthread_mutex_* (as the spin locks, monitor_internal.h).  `next` is the
 * time the thread sleeps until, 0 while it scans; an event that lowers a
 * stripe's bound below `next` lowers `next` and wakes it (FUTEX_WAKE),
 * and one that finds 0 bumps `seq` so that the thread scans again instead
 * of sleeping.  Both sides write before they read (the stripe's bound then
 * `next`; `next` = 0 then the bounds), sequentially consistent, so either
 * the scan sees the new bound or the event sees the thread scanning.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "monitor_internal.h"

enum { T_IDLE = 0, T_RUNNING = 1, T_STOPPING = 2 };

static struct {
  uint32_t seq;   /* the futex word: bumped to make the thread scan again */
  uint32_t state; /* T_*, under `lock` */
  uint32_t lock;  /* start and stop */
  uint64_t next;  /* the thread sleeps until then (ns); 0: it is scanning */
  pthread_t thread;
} timer = {.next = VK_NEVER};

int vg_monitor_timer_running(void) {
  return __atomic_load_n(&timer.state, __ATOMIC_RELAXED) == T_RUNNING;
}

static void futex_wait_until(uint32_t *w, uint32_t old, uint64_t deadline) {
  struct timespec ts = {.tv_sec = (time_t)(deadline / 1000000000u),
                        .tv_nsec = (long)(deadline % 1000000000u)};
  /* FUTEX_WAIT_BITSET: the timeout is absolute, on CLOCK_MONOTONIC */
  syscall(SYS_futex, w, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, old,
          deadline == VK_NEVER ? NULL : &ts, NULL, FUTEX_BITSET_MATCH_ANY);
}

static void futex_wake(uint32_t *w) {
  syscall(SYS_futex, w, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, INT_MAX, NULL, NULL, 0);
}

/* Reports made here name this thread; the runtime is busy on it for its
 * whole life, so monitored code a handler calls is not monitored. */
static void *__vigil_monitor_timer(void *arg) {
  (void)arg;
  vg_monitor_busy = 1;
  /* here, not by its creator: its first report may come before the
   * creator runs again */
  pthread_setname_np(pthread_self(), "vigil-timer");
  for (;;) {
    __atomic_store_n(&timer.next, 0, __ATOMIC_SEQ_CST);
    uint32_t seq = __atomic_load_n(&timer.seq, __ATOMIC_SEQ_CST);
    int stopping = __atomic_load_n(&timer.state, __ATOMIC_SEQ_CST) == T_STOPPING;
    uint64_t next = vg_monitor_expire_all(vg_monitor_now());
    if (stopping)
      return NULL;
    __atomic_store_n(&timer.next, next, __ATOMIC_SEQ_CST);
    futex_wait_until(&timer.seq, seq, next);
  }
}

static void after_fork_child(void) {
  /* the child has no timer thread: the next armed expiry starts one */
  timer.state = T_IDLE;
  timer.lock = 0;
  timer.next = VK_NEVER;
}

static void install_fork_handler(void) { pthread_atfork(NULL, NULL, after_fork_child); }

/* Start the thread (once; never after the program began to exit), with
 * every signal blocked: the program's signals are for its own threads. */
static __attribute__((noinline, cold)) int start(void) {
  static pthread_once_t fork_once = PTHREAD_ONCE_INIT;
  vg_monitor_park(); /* the pthread calls may be the program's (monitor.c) */
  pthread_once(&fork_once, install_fork_handler);
  spin_lock(&timer.lock);
  if (timer.state == T_IDLE) {
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    if (pthread_create(&timer.thread, NULL, __vigil_monitor_timer, NULL) == 0)
      __atomic_store_n(&timer.state, T_RUNNING, __ATOMIC_SEQ_CST);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
  }
  int running = timer.state == T_RUNNING;
  spin_unlock(&timer.lock);
  vg_monitor_unpark();
  return running;
}

void vg_monitor_timer_arm(uint64_t expiry) {
  if (vg_monitor_manual_clock())
    return; /* the driver runs the scans: __vigil_monitor_set_time */
  if (__builtin_expect(!vg_monitor_timer_running(), 0) && !start())
    return;
  uint64_t n = __atomic_load_n(&timer.next, __ATOMIC_SEQ_CST);
  while (n != 0) {
    if (expiry >= n)
      return; /* it wakes by then anyway */
    if (__atomic_compare_exchange_n(&timer.next, &n, expiry, 0, __ATOMIC_SEQ_CST,
                                    __ATOMIC_SEQ_CST))
      break;
  }
  __atomic_fetch_add(&timer.seq, 1, __ATOMIC_SEQ_CST);
  if (n != 0)
    futex_wake(&timer.seq); /* it sleeps: wake it; scanning, it sees seq */
}

void vg_monitor_timer_stop(void) {
  spin_lock(&timer.lock);
  int running = timer.state == T_RUNNING;
  __atomic_store_n(&timer.state, T_STOPPING, __ATOMIC_SEQ_CST);
  spin_unlock(&timer.lock);
  if (!running)
    return;
  __atomic_fetch_add(&timer.seq, 1, __ATOMIC_SEQ_CST);
  futex_wake(&timer.seq);
  if (pthread_equal(pthread_self(), timer.thread))
    return; /* exit() from a handler the timer thread ran */
  /* Its last scan may be in a handler that waits for this thread (a lock
   * the program holds while it exits): give up after a second. */
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += 1;
  pthread_timedjoin_np(timer.thread, NULL, &until);
}
