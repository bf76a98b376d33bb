/*
 * atomic.c — the atomic-region hooks the pass emits (include/vigil/atomic.h):
 * begin, end, clear, the access check's slow path, and the backend's
 * vg_atomic_remote; thread exit and fork.
 *
 * The common path is a begin and an end with no other thread near the
 * variable.  Its cost, argued:
 *   begin  whitelist byte, guard, a scan of this thread's held ARs (for the
 *          self loop; usually 0-2 entries), a CAS on the slot this thread
 *          used last (in its own cache), a few stores, one atomic add per
 *          filter bucket (the seq_cst RMW is what makes two simultaneous
 *          begins see each other; a plain store would not).
 *   end    a scan of the held ARs, one CAS on the slot's state (an end and
 *          a remote's record must agree on who was first), the filter
 *          decrement, the generation bump, and a load of `waiters` that
 *          keeps FUTEX_WAKE off the path when nobody sleeps.
 * No lock, no system call, no clock.  Time is read only when a remote is
 * recorded.  Counters are per thread, summed at exit (atomic_stats.c).
 *
 * Re-entrancy: a thread-local `busy` flag ignores hooks raised while the
 * core runs on the thread (a report's handler calling instrumented code, a
 * signal handler interrupting a hook).  The hooks themselves hold no lock,
 * so a signal handler that runs them outside `busy` cannot deadlock; every
 * wait is a futex wait bounded by VIGIL_ATOMIC_TIMEOUT_MS.
 */
#define _GNU_SOURCE
#include <execinfo.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "atomic_internal.h"
#include "internal.h"

_Thread_local struct vg_ar_thread vg_ar_self;
const struct vigil_atomic_program *vg_atomic_prog;

/* ---- the backend's hooks: no-ops unless runtime/atomic_watch.c links ---- */
__attribute__((weak)) int vg_atomic_watch_init(void) { return -1; }
__attribute__((weak)) int vg_atomic_watch_arm(struct vg_ar_slot *s) {
  (void)s;
  return -1;
}
__attribute__((weak)) void vg_atomic_watch_release(struct vg_ar_slot *s) { (void)s; }
__attribute__((weak)) void vg_atomic_watch_thread_start(void) {}
__attribute__((weak)) void vg_atomic_watch_thread_exit(void) {}
__attribute__((weak)) void vg_atomic_watch_fork_child(void) {}

static inline int holding_mode(void) {
  return vg_atomic_config.mode == VG_AM_PREVENT || vg_atomic_config.mode == VG_AM_FIND;
}

/* ---- threads -------------------------------------------------------------------- */

static pthread_key_t exit_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static void release_all(struct vg_ar_thread *t, uint32_t first, uint32_t count);

static void thread_exit(void *p) {
  (void)p;
  struct vg_ar_thread *t = &vg_ar_self;
  t->busy = 1;
  release_all(t, 0, UINT32_MAX); /* its ARs end with it, without a verdict */
  vg_atomic_flush_pending(t);
  free(t->pending);
  t->pending = NULL;
  if (vg_atomic_config.detector == VG_AD_WATCHPOINTS)
    vg_atomic_watch_thread_exit();
  vg_atomic_stats_thread_exit(t);
  t->exited = 1;
}
static void make_key(void) { pthread_key_create(&exit_key, thread_exit); }

static __attribute__((noinline, cold)) void thread_start(struct vg_ar_thread *t) {
  t->tid = (uint32_t)syscall(SYS_gettid);
  /* spread the first hints: threads starting together do not all race
   * for slot 0 */
  t->hint = t->tid % VG_AR_SLOTS;
  t->rng = ((uint64_t)t->tid << 32) ^ vg_atomic_now_ns() ^ 0x9e3779b97f4a7c15ull;
  pthread_once(&key_once, make_key);
  pthread_setspecific(exit_key, (void *)1);
  vg_atomic_stats_thread_start(t);
  if (vg_atomic_config.detector == VG_AD_WATCHPOINTS)
    vg_atomic_watch_thread_start();
}

static void after_fork_child(void) {
  struct vg_ar_thread *t = &vg_ar_self;
  if (t->tid)
    t->tid = (uint32_t)syscall(SYS_gettid);
  vg_slots_after_fork(t->tid);
  vg_atomic_stats_after_fork(t);
  if (vg_atomic_config.detector == VG_AD_WATCHPOINTS)
    vg_atomic_watch_fork_child();
}

int vg_atomic_capture(uintptr_t *frames, int max) {
  void *pcs[VG_AR_REMOTE_FRAMES];
  int n = backtrace(pcs, max < VG_AR_REMOTE_FRAMES ? max : VG_AR_REMOTE_FRAMES);
  for (int i = 0; i < n; i++)
    frames[i] = (uintptr_t)pcs[i];
  return n;
}

/* ---- remote accesses ---------------------------------------------------------------- */

enum scan { SCAN_RECORD, SCAN_WAIT, SCAN_QUEUE, SCAN_PROBE };

static int holds_on(const struct vg_ar_thread *t, uintptr_t p, uint32_t len) {
  for (uint32_t i = 0; i < t->n; i++)
    if (vg_overlaps(t->held_slot[i]->addr, t->held_slot[i]->len, p, len))
      return 1;
  return 0;
}

/* A slot published by a begin that waits its turn (VG_SLOT_WAITING): an
 * access goes ahead (that AR's first access has not happened: serial), a
 * new begin waits behind it unless this thread holds an AR on the address
 * (the queued begin may be waiting for that one) or queues itself
 * (SCAN_QUEUE: two queued begins would wait for each other).  PROBE counts
 * it for a begin, which then steps back and queues behind it. */
static int queued_slot(struct vg_ar_thread *t, struct vg_ar_slot *s, uint32_t gen,
                       uintptr_t p, uint32_t len, enum scan how, int *waited) {
  if (how == SCAN_PROBE)
    return 1;
  if (how != SCAN_WAIT || holds_on(t, p, len))
    return 0;
  int ended = vg_slot_wait(s, gen);
  vg_atomic_count(ended ? VG_AC_HELD : VG_AC_TIMEOUTS, 1);
  t->scan_ahead |= !ended;
  *waited = 1;
  return 1;
}

/* Does an access of `kind` (and, for a begin, the new AR `mine`) conflict
 * with slot s's AR?  Three ways: the access breaks s's AR (Figure 2); s's
 * owner will still access the variable in a way that breaks the new AR;
 * the new AR's owner will still access it in a way that breaks s's AR.
 * "Will still access" is later_kinds (atomic.h): the AR's ends and those of
 * the ARs chained to it, so `x += n` after a read of x (R->R, then R->W)
 * counts as the writer it is from its first read.  The second rule is what
 * prevents the paper's own Figure 1: two threads read shared_ptr == NULL (a
 * remote read does not break a read-write AR, so neither would wait), then
 * each one's write breaks the other's AR and each waits for the other until
 * the timeout.  The third is its mirror, and the chain keeps it free of
 * deadlock: a thread that will write is stopped at the first read of its
 * chain, before it holds anything on the variable, instead of at an
 * upgrade from a read-read AR to a read-write one, where two threads that
 * both hold a read-read AR would wait for each other.  An AR that may write
 * is exclusive against ARs its writes would break, like a lock that readers
 * share until one of them is going to write. */
static inline unsigned conflict(const struct vg_ar_slot *s, unsigned kind,
                                const struct vigil_ar *mine, unsigned *later) {
  *later = 0;
  if (s->watch & kind)
    return 1;
  if (!mine)
    return 0;
  *later = mine->later_kinds & s->watch;
  return *later || (mine->watch & vg_atomic_prog->ars[s->ar].later_kinds);
}

/* A scan reads the slots one after another, so it can miss a thread whose
 * chain of ARs moves from a slot it has not reached to one it has passed:
 * the chain's next AR is published before its previous one ends, but in a
 * lower slot (measured on apache-25520: a begin's probe saw neither of the
 * two, went ahead, and the two chains interleaved).  A round that waited
 * for nothing is therefore read twice (a double collect): when no slot's
 * generation or state changed in between, what the round saw was all there
 * at one moment; otherwise it is looked at again, SCAN_MOVES times at most. */
#define SCAN_MOVES 8
/* what a move is: the phase and WAITING; not the flags a scan's own record
 * (or another remote's) sets */
#define SCAN_STATE ((uint32_t)VG_SLOT_PHASE | VG_SLOT_WAITING)

static int unmoved(const uint64_t *seen, uint32_t hw) {
  if (atomic_load_explicit(&vg_ar_slot_hw, memory_order_acquire) != hw)
    return 0;
  for (uint32_t i = 0; i < hw; i++) {
    const struct vg_ar_slot *s = &vg_ar_slots[i];
    uint32_t gen = atomic_load_explicit(&s->futex, memory_order_acquire);
    uint32_t st = atomic_load_explicit(&s->state, memory_order_acquire);
    if (seen[i] != ((uint64_t)gen << 32 | (st & SCAN_STATE)))
      return 0;
  }
  return 1;
}

/* Every active AR of another thread on [p, p+len) that conflicts with this
 * access (for a begin, `mine` is the new AR).
 * SCAN_RECORD records this access in each; SCAN_WAIT also waits for each
 * one that holds (prevent/find), and then looks again: the access goes
 * ahead only once the variable is in no AR (§2.2), at most 4 rounds, and
 * an AR that made it wait its full timeout once is not waited on again.
 * SCAN_PROBE only counts the ones that would hold.  Returns how many;
 * t->scan_ahead says whether the access went ahead of one of them (it was
 * recorded there without waiting, or its wait timed out).  Only that makes
 * a begin's chain "ahead" (went_ahead): a begin that waited an AR out is
 * serial after it, and counting it as ahead made the chain's end record its
 * write, after the fact, in the next AR another thread had just begun
 * (measured: 1 false RWW in ~50 runs of a plain counter under load). */
static __attribute__((noinline)) int remote_scan(struct vg_ar_thread *t, uintptr_t p,
                                                uint32_t len, unsigned kind,
                                                const struct vigil_ar *mine, unsigned via,
                                                uint32_t site, enum scan how) {
  int found = 0;
  /* a record in a mode that holds: this thread's region went ahead */
  int ahead = how == SCAN_RECORD && holding_mode();
  t->scan_ahead = 0;
  uint64_t seen[VG_AR_SLOTS];
  for (int round = 0, moved = 0; round < 4 && moved < SCAN_MOVES; round++) {
    int waited = 0;
    uint32_t hw = atomic_load_explicit(&vg_ar_slot_hw, memory_order_acquire);
    for (uint32_t i = 0; i < hw; i++) {
      struct vg_ar_slot *s = &vg_ar_slots[i];
      uint32_t gen = atomic_load_explicit(&s->futex, memory_order_acquire);
      uint32_t st = atomic_load_explicit(&s->state, memory_order_acquire);
      seen[i] = (uint64_t)gen << 32 | (st & SCAN_STATE);
      unsigned later;
      if ((st & VG_SLOT_PHASE) != VG_SLOT_ACTIVE || s->owner == t ||
          !vg_overlaps(s->addr, s->len, p, len) ||
          !conflict(s, kind, how == SCAN_RECORD ? NULL : mine, &later) ||
          (round && (st & VG_SLOT_EXPIRED)))
        continue;
      if (st & VG_SLOT_WAITING) {
        if (mine)
          found += queued_slot(t, s, gen, p, len, how, &waited);
        continue;
      }
      int hold = (how == SCAN_WAIT || how == SCAN_QUEUE) && vg_atomic_would_hold(s);
      if (how == SCAN_PROBE) {
        found += vg_atomic_would_hold(s);
        continue;
      }
      /* Only what breaks s's AR is recorded there (a slot keeps its first
       * remote; a harmless one would hide the next).  A begin held for
       * what its region would do next (later) is a prediction: find mode
       * reports it (widening windows to see such pairs is its job), while
       * prevent mode waits silently, as a lock would. */
      if (!hold || vg_atomic_config.mode != VG_AM_FIND)
        later = 0;
      if ((s->watch & kind) || later) {
        int r = vg_slot_record(s, gen, kind, later, via, site, 0, 1,
                               hold ? VG_HELD_YES : ahead ? VG_HELD_AHEAD : VG_HELD_NO);
        if (r < 0)
          continue;
        vg_atomic_count(r ? VG_AC_REMOTES : VG_AC_REMOTE_REPEATS, 1);
      } else if (!hold) {
        continue;
      }
      found++;
      if (hold) {
        int ended = vg_slot_wait(s, gen);
        vg_atomic_count(ended ? VG_AC_HELD : VG_AC_TIMEOUTS, 1);
        t->scan_ahead |= !ended;
        waited = 1;
      } else {
        t->scan_ahead = 1;
      }
    }
    if (waited)
      continue;
    if ((how == SCAN_PROBE && found) || unmoved(seen, hw))
      break;
    round--, moved++; /* a chain moved between slots under the scan: look again */
  }
  return found;
}

static inline int filter_any(uintptr_t p, uint32_t len) {
  uintptr_t first = p >> 3, last = (p + len - 1) >> 3;
  for (uintptr_t g = first; g <= last; g++)
    if (__vigil_atomic_filter[g & (VIGIL_ATOMIC_FILTER_SIZE - 1)] & VIGIL_ATOMIC_FILTER_COUNT)
      return 1;
  return 0;
}

int vg_atomic_remote(struct vg_ar_slot *s, unsigned kind, uintptr_t pc, int can_hold) {
  uint32_t gen = atomic_load_explicit(&s->futex, memory_order_acquire);
  uint32_t st = atomic_load_explicit(&s->state, memory_order_acquire);
  if (!vg_ar_n || (st & VG_SLOT_PHASE) != VG_SLOT_ACTIVE || s->owner == &vg_ar_self ||
      s->owner_tid == vg_atomic_tid())
    return VG_REMOTE_NOT_HELD;
  int hold = can_hold && vg_atomic_would_hold(s);
  int r = vg_slot_record(s, gen, kind, 0, VG_VIA_WATCH, UINT32_MAX, pc, 0,
                         hold ? VG_HELD_YES : VG_HELD_NO);
  if (r < 0)
    return VG_REMOTE_NOT_HELD;
  vg_atomic_count(r ? VG_AC_REMOTES : VG_AC_REMOTE_REPEATS, 1);
  if (!hold)
    return VG_REMOTE_NOT_HELD;
  if (vg_slot_wait(s, gen)) {
    vg_atomic_count(VG_AC_HELD, 1);
    return VG_REMOTE_HELD;
  }
  vg_atomic_count(VG_AC_TIMEOUTS, 1);
  return VG_REMOTE_TIMED_OUT;
}

/* ---- ends ---------------------------------------------------------------------------- */

static inline int held_find(const struct vg_ar_thread *t, uint32_t ar) {
  for (uint32_t i = 0; i < t->n; i++)
    if (t->held_ar[i] == ar)
      return (int)i;
  return -1;
}

/* The verdict of an AR whose slot recorded a remote (state ENDING). */
static int decide(struct vg_ar_verdict *v, const struct vg_ar_slot *s, uint32_t st,
                  unsigned second, uint32_t end, int self_loop) {
  memset(v, 0, sizeof *v);
  v->slot = *s;
  v->end = end;
  v->second_kind = (uint8_t)second;
  v->self_loop = (uint8_t)self_loop;
  if (!vg_atomic_pattern(s->first_kind, s->remote.kind | s->remote.later, second,
                         v->pattern)) {
    vg_atomic_count(VG_AC_SERIALIZABLE, 1);
    return 0;
  }
  int held = s->remote.held == VG_HELD_YES;
  v->timed_out = held && (st & VG_SLOT_EXPIRED);
  v->prevented = held && !v->timed_out;
  uint64_t now = vg_atomic_now_ns();
  v->waited_ns = !held ? 0
                 : v->timed_out && s->cut_ms ? (uint64_t)s->cut_ms * 1000000u
                 : v->timed_out  ? (uint64_t)vg_atomic_config.timeout_ms * 1000000u
                 : now > s->remote.time_ns ? now - s->remote.time_ns : 0;
  return 1;
}

/* A report symbolises two stacks: the first one in a process reads the
 * debug info (50-200 ms measured), later ones take 0.1-1 ms.  A thread
 * that still holds an AR (the next AR of a chain: `x += n` ends R->R
 * after R->W began) would hold every other thread on the variable that
 * long, past the timeout, and the timed-out accesses break the ARs they
 * waited for.  So the report waits until the thread holds no AR; the
 * local backtrace is then taken where its last AR ended (the same function
 * or its caller).  VG_AR_PENDING deferred verdicts at most; past that they
 * are reported at once. */
#define VG_AR_PENDING 8

static int defer(struct vg_ar_thread *t, const struct vg_ar_verdict *v) {
  if (!t->pending)
    t->pending = malloc(VG_AR_PENDING * sizeof *t->pending);
  if (!t->pending || t->npending == VG_AR_PENDING)
    return 0;
  t->pending[t->npending++] = *v;
  return 1;
}

void vg_atomic_flush_pending(struct vg_ar_thread *t) {
  for (uint32_t i = 0; i < t->npending; i++)
    vg_atomic_report(&t->pending[i]);
  t->npending = 0;
}

/* The rare end: a remote was recorded.  Out of line, so that the common
 * end has no 400-byte verdict on its stack (measured: 20 instructions of
 * frame set-up on every end). */
static __attribute__((noinline, cold)) void judge(struct vg_ar_thread *t,
                                                  struct vg_ar_slot *s, uint32_t st,
                                                  unsigned second, uint32_t end,
                                                  int self_loop) {
  struct vg_ar_verdict v;
  int report = decide(&v, s, st, second, end, self_loop);
  if (s->armed)
    vg_atomic_watch_release(s);
  s->armed = 0;
  vg_slot_release(s);
  if (report && !(t->n && defer(t, &v)))
    vg_atomic_report(&v);
}

/* Ends held entry i: with a verdict (second access of `second` kind at
 * ends[end]) or without (clear, exit).  The report comes after the release,
 * so a held remote goes on while the report is symbolised. */
static void finish(struct vg_ar_thread *t, uint32_t i, unsigned second, uint32_t end,
                   int self_loop, int verdict) {
  struct vg_ar_slot *s = t->held_slot[i];
  t->n--;
  t->held_ar[i] = t->held_ar[t->n];
  t->held_slot[i] = t->held_slot[t->n];
  t->held_met[i] = t->held_met[t->n];
  uint32_t st = atomic_load_explicit(&s->state, memory_order_acquire);
  for (unsigned spins = 0;; spins++) {
    if (st & VG_SLOT_RECORDING) { /* a remote is writing its record: a few stores */
      if (spins > 100)
        sched_yield();
      st = atomic_load_explicit(&s->state, memory_order_acquire);
      continue;
    }
    if (atomic_compare_exchange_weak_explicit(&s->state, &st,
                                              (st & ~(uint32_t)VG_SLOT_PHASE) | VG_SLOT_ENDING,
                                              memory_order_acq_rel, memory_order_acquire))
      break;
  }
  if (__builtin_expect(verdict && (st & VG_SLOT_REMOTE), 0)) {
    judge(t, s, st, second, end, self_loop);
    return;
  }
  if (s->armed)
    vg_atomic_watch_release(s);
  s->armed = 0;
  vg_slot_release(s);
}

static void release_all(struct vg_ar_thread *t, uint32_t first, uint32_t count) {
  uint64_t n = 0;
  for (uint32_t i = t->n; i-- > 0;)
    if (t->held_ar[i] - first < count) {
      finish(t, i, 0, UINT32_MAX, 0, 0);
      n++;
    }
  if (n)
    vg_atomic_count(VG_AC_CLEARS, n);
}

/* ---- begins ----------------------------------------------------------------------------- */

static inline uint64_t read_value(uintptr_t p, uint32_t len) {
  uint64_t v = 0;
  switch (len) {
  case 1: { uint8_t x; memcpy(&x, (void *)p, 1); v = x; break; }
  case 2: { uint16_t x; memcpy(&x, (void *)p, 2); v = x; break; }
  case 4: { uint32_t x; memcpy(&x, (void *)p, 4); v = x; break; }
  default: memcpy(&v, (void *)p, len < 8 ? len : 8);
  }
  return v;
}

/* Find mode: the first begin of every AR pauses, later ones with
 * probability VIGIL_ATOMIC_PAUSE_RATE while the thread is within its
 * VIGIL_ATOMIC_PAUSE_SHARE of time (atomic_config.c says why). */
static __attribute__((noinline, cold)) void maybe_pause(struct vg_ar_thread *t, uint32_t ar) {
  int first = !__atomic_load_n(&vg_ar_paused[ar], __ATOMIC_RELAXED);
  if (first)
    __atomic_store_n(&vg_ar_paused[ar], 1, __ATOMIC_RELAXED);
  t->rng ^= t->rng << 13, t->rng ^= t->rng >> 7, t->rng ^= t->rng << 17;
  if (!first && (double)(t->rng >> 11) * 0x1p-53 >= vg_atomic_config.pause_rate)
    return;
  uint64_t now = vg_atomic_now_ns(), pause = (uint64_t)vg_atomic_config.pause_ms * 1000000u;
  if (!t->pause_since_ns)
    t->pause_since_ns = now;
  if (!first && vg_atomic_config.pause_share < 1 &&
      (double)(t->paused_ns + pause) >
                    vg_atomic_config.pause_share * (double)(now - t->pause_since_ns + pause)) {
    vg_atomic_count(VG_AC_PAUSES_SKIPPED, 1); /* over its share (atomic_config.c) */
    return;
  }
  struct timespec ts = {vg_atomic_config.pause_ms / 1000,
                        (vg_atomic_config.pause_ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) < 0)
    ;
  t->paused_ns += vg_atomic_now_ns() - now;
  vg_atomic_count(VG_AC_PAUSES, 1);
}

/* `reads`: a begin_read, which reads the variable itself after the
 * publication and only then sets saved (saved_ready stays 0 until then). */
static void fill(struct vg_ar_slot *s, struct vg_ar_thread *t, uint32_t ar,
                 const struct vigil_ar *a, uintptr_t p, uint32_t len, uint64_t value,
                 int reads) {
  s->owner = t;
  s->owner_tid = t->tid;
  s->addr = p;
  s->len = len;
  s->ar = ar;
  s->first_kind = a->first_kind;
  s->watch = a->watch;
  s->armed = 0;
  atomic_store_explicit(&s->repeats, 0, memory_order_relaxed);
  /* a begin_read's own read replaces this one; until then a trap's undo
   * (atomic_watch_trap.c) restores the value from before the begin */
  s->saved = a->first_kind & VIGIL_AR_WRITE ? value : read_value(p, len);
  atomic_store_explicit(&s->saved_ready, !reads, memory_order_relaxed);
  s->begin_ns = 0;
  atomic_store_explicit(&s->cut_ms, 0, memory_order_relaxed);
}

/* A new instance of AR `ar` on this thread.  This begin is itself a remote
 * access for any other thread's AR on the address: recorded there, and in
 * prevent/find mode delayed until that AR ends (§3.3), before this AR is
 * entered.  Two begins at the same moment both see each other after
 * publishing; in prevent mode both step back (a thread waiting while it
 * holds an AR another thread waits on would stall both until the
 * timeout) and try again after a random pause that grows with each try,
 * which breaks the tie (at most BEGIN_TRIES, then go ahead recorded:
 * counted as begins_forced).  A thread that already holds an AR on the
 * address whose later accesses announced this one (the chain of `x += n`,
 * the second AR of Figure 4) neither waits nor steps back: its chain began
 * first, every other begin on the address waits for it, and one that was
 * forced ahead is the one that waits when its own chain goes on.  Waiting
 * here instead would deadlock the two chains until the timeout. */
#define BEGIN_TRIES 8

/* The held entry whose later accesses announced AR a on [p, p+len) (the
 * chain a continues), or -1. */
static int chained(const struct vg_ar_thread *t, const struct vigil_ar *a, uintptr_t p,
                   uint32_t len) {
  unsigned kinds = a->first_kind | a->later_kinds;
  for (uint32_t i = 0; i < t->n; i++)
    if (vg_overlaps(t->held_slot[i]->addr, t->held_slot[i]->len, p, len) &&
        !(kinds & ~vg_atomic_prog->ars[t->held_ar[i]].later_kinds))
      return (int)i;
  return -1;
}

/* Whether held entry i went ahead of another thread's AR instead of after
 * it: its begin met one (a timeout, forced), or another thread's access
 * timed out waiting for it (EXPIRED).  From then on the two chains are
 * not serial, and nothing else would check them: a chain's later begins
 * do not wait (that is what keeps chains free of deadlock), and a region's
 * ends are not checked accesses.  So an AR that continues such a chain
 * records its begin, and its ends, in every other thread's AR they break
 * (measured on apache-25520 under load, 1 ms timeout: the log lost lines
 * with no violation recorded). */
static inline int went_ahead(const struct vg_ar_thread *t, uint32_t i) {
  return t->held_met[i] ||
         (atomic_load_explicit(&t->held_slot[i]->state, memory_order_relaxed) & VG_SLOT_EXPIRED);
}

static __attribute__((noinline, cold)) void back_off(struct vg_ar_thread *t, int tries) {
  vg_atomic_count(VG_AC_COLLISIONS, 1);
  t->rng ^= t->rng << 13, t->rng ^= t->rng >> 7, t->rng ^= t->rng << 17;
  unsigned spins = (unsigned)(t->rng % (32u << tries));
  for (unsigned i = 0; i < spins; i++) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#else
    atomic_signal_fence(memory_order_seq_cst);
#endif
  }
  if (tries >= 3)
    sched_yield(); /* the other begin may be a preempted thread on this core */
}

/* The last try of a begin that kept colliding (a thread looping through a
 * chain of ARs on the variable, whose begins go on without waiting, gets
 * back in before this one after every wait: measured on mysql-3596, 2-5
 * begins a run went ahead forced and broke the chain's ARs).  It stays
 * published, WAITING, so that the chain's next first begin waits behind
 * it, and waits for the ARs already there; then it goes ahead, forced
 * only if a conflicting AR is still there. */
static int take_turn(struct vg_ar_thread *t, struct vg_ar_slot *s, const struct vigil_ar *a,
                     uintptr_t p, uint32_t len, uint32_t ar) {
  remote_scan(t, p, len, a->first_kind, a, VG_VIA_BEGIN, ar, SCAN_QUEUE);
  int met = t->scan_ahead;
  atomic_fetch_and_explicit(&s->state, ~(uint32_t)VG_SLOT_WAITING, memory_order_seq_cst);
  if (!remote_scan(t, p, len, a->first_kind, a, VG_VIA_BEGIN, ar, SCAN_PROBE)) {
    vg_atomic_count(VG_AC_QUEUED, 1);
    return met;
  }
  vg_atomic_count(VG_AC_FORCED, 1);
  return remote_scan(t, p, len, a->first_kind, a, VG_VIA_BEGIN, ar, SCAN_RECORD) > 0 || met;
}

static struct vg_ar_slot *begin(struct vg_ar_thread *t, uint32_t ar, uintptr_t p,
                                uint64_t value, int reads) {
  const struct vigil_ar *a = &vg_atomic_prog->ars[ar];
  uint32_t len = a->size ? a->size : VG_AR_BIG_LEN;
  unsigned kind = a->first_kind;
  int holds = holding_mode();
  struct vg_ar_slot *s = NULL;
  int met = 0;
  int from = holds && t->n ? chained(t, a, p, len) : -1;
  int first = from < 0;
  if (!first && went_ahead(t, (uint32_t)from))
    met = 1; /* recorded below, after the publish */
  for (int tries = 0;; tries++) {
    if (holds && first && filter_any(p, len)) {
      remote_scan(t, p, len, kind, a, VG_VIA_BEGIN, ar, SCAN_WAIT);
      met |= t->scan_ahead;
    }
    if (t->n == VG_AR_PER_THREAD || !(s = vg_slot_claim(t, p, len))) {
      vg_atomic_count(t->n == VG_AR_PER_THREAD ? VG_AC_THREAD_FULL : VG_AC_NO_SLOT, 1);
      if (!holds)
        remote_scan(t, p, len, kind, a, VG_VIA_BEGIN, ar, SCAN_RECORD);
      return NULL;
    }
    fill(s, t, ar, a, p, len, value, reads);
    int queue = holds && first && tries == BEGIN_TRIES - 1;
    if (!vg_slot_publish(s, queue ? VG_SLOT_WAITING : 0) && !queue)
      break; /* no other AR in these buckets: the common case */
    if (queue) {
      met |= take_turn(t, s, a, p, len, ar);
      break;
    }
    if (!first && met) {
      remote_scan(t, p, len, kind, NULL, VG_VIA_BEGIN, ar, SCAN_RECORD);
      break; /* a chain that went ahead goes on, recorded */
    }
    if (holds && (!first || !remote_scan(t, p, len, kind, a, VG_VIA_BEGIN, ar, SCAN_PROBE)))
      break; /* a chain that goes on, or only ARs the pre-scan already waited out */
    if (!holds) {
      met |= remote_scan(t, p, len, kind, a, VG_VIA_BEGIN, ar, SCAN_RECORD) > 0;
      break;
    }
    vg_slot_release(s); /* step back and wait as a remote */
    back_off(t, tries);
  }
  if (t->n && (kind & VIGIL_AR_WRITE))
    vg_atomic_own_write(t, p, len, value); /* the ARs this write ends expect it */
  t->held_ar[t->n] = ar;
  t->held_met[t->n] = met;
  t->held_slot[t->n++] = s;
  if (vg_atomic_config.detector == VG_AD_WATCHPOINTS) {
    s->armed = vg_atomic_watch_arm(s) == 0;
    if (!s->armed)
      vg_atomic_count(VG_AC_NO_WATCH, 1);
  }
  return s;
}

/* ---- the entry points --------------------------------------------------------------------- */

void __vigil_atomic_register(const struct vigil_atomic_program *p) {
  if (!p || vg_atomic_prog)
    return; /* one program per process; a second table set is ignored */
  if (p->abi != VIGIL_ATOMIC_ABI) {
    fprintf(stderr,
            "vigil: ignoring the program's atomic regions: built for atomic ABI %u, this "
            "libvigil has ABI %u (rebuild with the vigil-cc of this libvigil)\n",
            (unsigned)p->abi, (unsigned)VIGIL_ATOMIC_ABI);
    return;
  }
  vg_config_init();
  if (vg_atomic_configure(p) != 0)
    return;
  {
    void *one[1];
    backtrace(one, 1); /* loads the unwinder now, not in a remote's record */
  }
  pthread_atfork(NULL, NULL, after_fork_child);
  vg_atomic_prog = p;
  __atomic_store_n(&vg_ar_n_ends, p->n_ends, __ATOMIC_RELEASE);
  __atomic_store_n(&vg_ar_n_sites, p->n_sites, __ATOMIC_RELEASE);
  __atomic_store_n(&vg_ar_n, p->n_ars, __ATOMIC_RELEASE);
}

/* The begin both entry points share: 0 when the AR is not monitored here
 * (not registered, re-entered, whitelisted), else 1 with the thread busy
 * and *slot the AR's slot (NULL: unmonitored, counted). */
static inline int enter(struct vg_ar_thread *t, uint32_t ar, uintptr_t p, uint64_t value,
                        int reads, struct vg_ar_slot **slot) {
  if (ar >= __atomic_load_n(&vg_ar_n, __ATOMIC_ACQUIRE))
    return 0;
  if (t->busy | t->exited)
    return 0;
  if (__builtin_expect(!t->tid, 0)) {
    t->busy = 1;
    thread_start(t);
    t->busy = 0;
  }
  if (vg_ar_skip[ar]) {
    t->hot[VG_HOT_WHITELISTED]++;
    return 0;
  }
  t->busy = 1;
  t->hot[VG_HOT_BEGINS]++;
  int i = held_find(t, ar);
  if (i >= 0) { /* a loop: A is its own B (atomic.h) */
    vg_atomic_count(VG_AC_SELF_LOOPS, 1);
    finish(t, (uint32_t)i, vg_atomic_prog->ars[ar].first_kind, UINT32_MAX, 1, 1);
  }
  *slot = begin(t, ar, p, value, reads);
  return 1;
}

void __vigil_ar_begin(uint32_t ar, void *addr, uint64_t value) {
  struct vg_ar_thread *t = &vg_ar_self;
  struct vg_ar_slot *s;
  if (!enter(t, ar, (uintptr_t)addr, value, 0, &s))
    return;
  if (vg_atomic_config.mode == VG_AM_FIND)
    maybe_pause(t, ar);
  t->busy = 0;
}

/* The read is also the second access of ARs this thread holds on the
 * variable (a chain: `if (x) f(x);` after a write of x): settle it against
 * them as __vigil_ar_end_read does. */
static uint64_t settle_chained(struct vg_ar_thread *t, struct vg_ar_slot *mine, uintptr_t p,
                               uint32_t size, uint64_t v) {
  for (uint32_t i = 0; i < t->n; i++) {
    struct vg_ar_slot *h = t->held_slot[i];
    if (h != mine && h->addr == p && h->len == size && (h->watch & VIGIL_AR_WRITE) &&
        v != h->saved)
      v = vg_atomic_settle(h, p, size, v);
  }
  return v;
}

/* The read A, made here after the publication (a seq_cst RMW per bucket,
 * which on x86 is a full fence: the read cannot be served before the
 * filter shows the AR).  Find mode pauses after it: the window to widen is
 * between A and B. */
uint64_t __vigil_ar_begin_read(uint32_t ar, void *addr, uint32_t size) {
  struct vg_ar_thread *t = &vg_ar_self;
  uintptr_t p = (uintptr_t)addr;
  struct vg_ar_slot *s;
  if (!enter(t, ar, p, 0, 1, &s))
    return vg_load_n(p, size);
#if !defined(__x86_64__) && !defined(__i386__)
  atomic_thread_fence(memory_order_seq_cst);
#endif
  uint64_t v = vg_load_n(p, size);
  if (holding_mode())
    v = settle_chained(t, s, p, size, v);
  if (s) {
    s->saved = v;
    atomic_store_explicit(&s->saved_ready, 1, memory_order_release);
  }
  if (vg_atomic_config.mode == VG_AM_FIND)
    maybe_pause(t, ar);
  t->busy = 0;
  return v;
}

/* B is not checked before it happens when it is always inside this
 * thread's own AR (atomic.h): in prevent mode no other thread's AR can
 * then hold the address, since this AR's begin waited for them.  That
 * holds only when the begin did not have to go ahead (a timeout, two
 * begins at once) and in the modes that do not wait; there B is recorded
 * here, after the fact, in every other thread's AR it breaks. */
static __attribute__((noinline, cold)) void end_as_remote(struct vg_ar_thread *t,
                                                         const struct vigil_ar_end *e,
                                                         uint32_t end, uintptr_t p) {
  uint32_t len = e->size ? e->size : VG_AR_BIG_LEN;
  if (filter_any(p, len))
    remote_scan(t, p, len, e->kind, NULL, VG_VIA_END, end, SCAN_RECORD);
}

/* Ends held entry i at ends[end] (the thread is busy). */
static void end_at(struct vg_ar_thread *t, int i, const struct vigil_ar_end *e, uint32_t end,
                   uintptr_t p) {
  t->hot[VG_HOT_ENDS]++;
  if (__builtin_expect(!holding_mode(), 0)) {
    end_as_remote(t, e, end, p);
  } else if (__builtin_expect(went_ahead(t, (uint32_t)i), 0)) {
    vg_atomic_count(VG_AC_ENDS_AHEAD, 1);
    end_as_remote(t, e, end, p);
  }
  /* a write that ends this AR is what the thread's other ARs there expect */
  if (__builtin_expect(t->n > 1, 0) && (e->kind & VIGIL_AR_WRITE) &&
      (e->size == 1 || e->size == 2 || e->size == 4 || e->size == 8) && !(p % e->size))
    vg_atomic_own_write(t, p, e->size, vg_load_n(p, e->size));
  finish(t, (uint32_t)i, e->kind, end, 0, 1);
  if (__builtin_expect(t->npending != 0, 0) && !t->n)
    vg_atomic_flush_pending(t);
}

void __vigil_ar_end(uint32_t end, void *addr) {
  struct vg_ar_thread *t = &vg_ar_self;
  if (!t->n || t->busy || end >= __atomic_load_n(&vg_ar_n_ends, __ATOMIC_ACQUIRE))
    return; /* nothing held: the common case for an end whose begin was not taken */
  const struct vigil_ar_end *e = &vg_atomic_prog->ends[end];
  int i = held_find(t, e->ar);
  if (i < 0)
    return;
  t->busy = 1;
  end_at(t, i, e, end, (uintptr_t)addr);
  t->busy = 0;
}

/* B, a read, made here (atomic_settle.c says why): when it does not see
 * the value the AR left, a remote write may be between its exchange and
 * its undo, and the read waits a little for the undo. */
uint64_t __vigil_ar_end_read(uint32_t end, void *addr, uint32_t size) {
  struct vg_ar_thread *t = &vg_ar_self;
  uintptr_t p = (uintptr_t)addr;
  if (!t->n || t->busy || end >= __atomic_load_n(&vg_ar_n_ends, __ATOMIC_ACQUIRE))
    return vg_load_n(p, size);
  const struct vigil_ar_end *e = &vg_atomic_prog->ends[end];
  int i = held_find(t, e->ar);
  if (i < 0)
    return vg_load_n(p, size);
  t->busy = 1;
  struct vg_ar_slot *s = t->held_slot[i];
  uint64_t v = vg_load_n(p, size);
  if (v != s->saved && holding_mode() && s->addr == p && s->len == size &&
      atomic_load_explicit(&s->saved_ready, memory_order_acquire))
    v = vg_atomic_settle(s, p, size, v);
  end_at(t, i, e, end, p);
  t->busy = 0;
  return v;
}

void __vigil_ar_clear(uint32_t first, uint32_t count) {
  struct vg_ar_thread *t = &vg_ar_self;
  if (!t->n || t->busy)
    return;
  t->busy = 1;
  release_all(t, first, count);
  if (__builtin_expect(t->npending != 0, 0) && !t->n)
    vg_atomic_flush_pending(t);
  t->busy = 0;
}

void __vigil_access(void *addr, uint32_t site) {
  struct vg_ar_thread *t = &vg_ar_self;
  if (site >= __atomic_load_n(&vg_ar_n_sites, __ATOMIC_ACQUIRE) ||
      vg_atomic_config.detector != VG_AD_CHECKS || t->busy || t->exited)
    return;
  const struct vigil_access_site *as = &vg_atomic_prog->sites[site];
  t->busy = 1;
  if (__builtin_expect(!t->tid, 0))
    thread_start(t);
  remote_scan(t, (uintptr_t)addr, as->size ? as->size : VG_AR_BIG_LEN, as->kind, NULL,
              VG_VIA_CHECK, site, holding_mode() ? SCAN_WAIT : SCAN_RECORD);
  t->busy = 0;
}

/* The read again of a checked read that found its bucket set (the pass's
 * first read is discarded).  A wait, then the read, then a look at the ARs
 * once more: an AR that began between the wait and the read may have made
 * its first access before the read, and the read must not see the inside
 * of a region whose remote reads break it (WRW).  Looking after the read
 * is enough on x86: a begin publishes (state, then a locked add on the
 * filter) before its first access, and loads are not reordered with loads,
 * so a read that saw that access sees the slot ACTIVE.  Detect mode records
 * after the read, once. */
uint64_t __vigil_access_read(void *addr, uint32_t site, uint32_t size) {
  struct vg_ar_thread *t = &vg_ar_self;
  uintptr_t p = (uintptr_t)addr;
  if (site >= __atomic_load_n(&vg_ar_n_sites, __ATOMIC_ACQUIRE) ||
      vg_atomic_config.detector != VG_AD_CHECKS || t->busy || t->exited)
    return vg_load_n(p, size);
  t->busy = 1;
  if (__builtin_expect(!t->tid, 0))
    thread_start(t);
  uint64_t v;
  if (!holding_mode()) {
    v = vg_load_n(p, size);
    remote_scan(t, p, size, VIGIL_AR_READ, NULL, VG_VIA_CHECK, site, SCAN_RECORD);
  } else {
    for (int round = 0;; round++) {
      remote_scan(t, p, size, VIGIL_AR_READ, NULL, VG_VIA_CHECK, site, SCAN_WAIT);
      v = vg_load_n(p, size);
      if (round == 3 ||
          !remote_scan(t, p, size, VIGIL_AR_READ, NULL, VG_VIA_CHECK, site, SCAN_PROBE))
        break;
    }
  }
  t->busy = 0;
  return v;
}

void __vigil_access_written(void *addr, uint32_t site, uint64_t old, uint64_t value) {
  struct vg_ar_thread *t = &vg_ar_self;
  if (site >= __atomic_load_n(&vg_ar_n_sites, __ATOMIC_ACQUIRE) ||
      vg_atomic_config.detector != VG_AD_CHECKS || t->busy || t->exited)
    return;
  const struct vigil_access_site *as = &vg_atomic_prog->sites[site];
  if (as->size != 1 && as->size != 2 && as->size != 4 && as->size != 8)
    return; /* the pass exchanges only these */
  t->busy = 1;
  if (__builtin_expect(!t->tid, 0))
    thread_start(t);
  if (t->n)
    vg_atomic_own_write(t, (uintptr_t)addr, as->size, value);
  vg_atomic_undo_write(t, (uintptr_t)addr, as->size, site, old, value);
  t->busy = 0;
}
