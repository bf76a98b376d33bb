/*
 * atomic_internal.h — atomic regions (Kivati, include/vigil/atomic.h):
 * what the runtime's core (atomic*.c) shares with a detector backend
 * (runtime/atomic_watch.c: hardware watchpoints).  Stable: the backend is
 * written against it.
 *
 * The core keeps one global table of active ARs (slots), visible to every
 * thread.  A slot is claimed with a CAS by the thread that begins the AR
 * (its owner) and freed by that thread's end, clear, thread exit or by a
 * fork.  Remote accesses are recorded in the slot by the thread making
 * them: from a begin (__vigil_ar_begin), from an access check
 * (__vigil_access) or from the backend's SIGTRAP handler
 * (vg_atomic_remote).  Nothing here takes a lock: a remote that must wait
 * sleeps on the slot's futex word, bounded by VIGIL_ATOMIC_TIMEOUT_MS.
 *
 * Backend contract:
 *  - vg_atomic_watch_init() once, from __vigil_atomic_register, only when
 *    the detector may be watchpoints: 0 when the backend can run here
 *    (otherwise the core falls back and says why).
 *  - vg_atomic_watch_arm(s) right after a slot becomes active (state
 *    VG_SLOT_ACTIVE, every field below filled, s->saved too), on the
 *    owner's thread: 0 armed, -1 nothing free (the core counts the AR as
 *    unmonitored, keeps the slot for begin-vs-begin detection and never
 *    calls release for it).  The backend may keep its own data in
 *    s->backend / s->backend_word.
 *  - vg_atomic_watch_release(s) before an armed slot is freed (end,
 *    clear, the owner's thread exit), always on the owner's thread, with s
 *    still filled in.  Not in a fork child: the child's slots of other
 *    threads are dropped, and fork_child says so.
 *  - vg_atomic_watch_thread_start() on a thread's first begin, before any
 *    arm from that thread; vg_atomic_watch_thread_exit() from the thread's
 *    exit destructor after its slots are released; vg_atomic_watch_fork_child()
 *    in the child after fork, after the core has reset its tables.
 *  - From its SIGTRAP handler, for a trap on a slot's address by a thread
 *    that is not s->owner_tid, the backend calls vg_atomic_remote(s, kind,
 *    pc, can_hold).  It must undo the access before the call when it will
 *    hold it (vg_atomic_would_hold(s) and can_hold), and re-execute it after.
 * The core's weak no-op definitions (atomic.c) make it link and work
 * without a backend: init returns -1.
 */
#ifndef VIGIL_ATOMIC_INTERNAL_H
#define VIGIL_ATOMIC_INTERNAL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "vigil/atomic.h"

/* Sizes.  64 active ARs in the whole process: the paper's hardware had 4;
 * a slot scan (begin with a conflict in the filter, a checked access) is
 * bounded by the high-water mark, not by this.  16 ARs held at once per
 * thread covers nesting in real code (an AR rarely spans more than a few
 * others); more are counted as unmonitored. */
#define VG_AR_SLOTS 64
#define VG_AR_PER_THREAD 16
#define VG_AR_REMOTE_FRAMES 24
/* The bytes an AR of size 0 ("more than 8") is taken to cover. */
#define VG_AR_BIG_LEN 64

/* Modes (VIGIL_ATOMIC_MODE) and detectors (VIGIL_ATOMIC_DETECTOR). */
enum vg_atomic_mode { VG_AM_PREVENT = 0, VG_AM_DETECT, VG_AM_FIND, VG_AM_TRAIN };
enum vg_atomic_detector { VG_AD_CHECKS = 0, VG_AD_WATCHPOINTS, VG_AD_BEGIN };

/* How a remote access was seen. */
enum vg_remote_via {
  VG_VIA_BEGIN = 1, /* another thread's __vigil_ar_begin on the address   */
  VG_VIA_CHECK,     /* __vigil_access (software detector); `site` is set   */
  VG_VIA_WATCH,     /* a watchpoint trap (vg_atomic_remote); `pc` is set   */
  VG_VIA_END        /* another thread's second access, seen at its end;
                       `site` is its ends[] index                          */
};

/* Whether a recorded remote waits for the AR's end. */
enum vg_remote_held {
  VG_HELD_NO = 0, /* it went on: detect mode, or it could not be held */
  VG_HELD_YES,    /* it waits (waited) for the AR's end */
  VG_HELD_AHEAD   /* its own region went ahead of this AR after a timeout or
                     a forced begin (atomic.c, went_ahead), so nothing holds it */
};

/* The first remote access recorded in an AR (the first wins; later ones
 * are only counted in the slot's `repeats`). */
struct vg_ar_remote {
  uint32_t tid;       /* kernel thread id of the remote thread */
  uint8_t kind;       /* VIGIL_AR_READ, _WRITE or both (read-modify-write) */
  uint8_t via;        /* enum vg_remote_via */
  uint8_t held;       /* enum vg_remote_held */
  uint8_t later;      /* VG_VIA_BEGIN: the kinds the remote's own region
                         goes on to access that break this AR (its begin
                         was held for them; the pattern counts them) */
  uint32_t site;      /* VG_VIA_CHECK: sites[] index; VG_VIA_BEGIN: its AR id;
                         VG_VIA_END: its ends[] index */
  int32_t nframes;    /* frames[] captured (0: none; 1: the pc alone) */
  uintptr_t pc;       /* VG_VIA_WATCH: the trapping instruction */
  uint64_t time_ns;   /* CLOCK_MONOTONIC when recorded */
  char thread_name[16];
  uintptr_t frames[VG_AR_REMOTE_FRAMES]; /* raw return addresses, innermost first */
};

/* Slot state word (`state`): the phase in the low two bits, flags above.
 * Every transition is a CAS on this word, so an end and a remote that
 * records at the same moment agree on whether the remote made it in. */
enum {
  VG_SLOT_FREE = 0,    /* unused */
  VG_SLOT_CLAIMED = 1, /* the owner is filling it in: not yet visible */
  VG_SLOT_ACTIVE = 2,  /* an AR in progress: remotes record and wait */
  VG_SLOT_ENDING = 3,  /* the owner is deciding the verdict and releasing */
  VG_SLOT_PHASE = 3,
  VG_SLOT_RECORDING = 4, /* a remote is writing `remote` (owner: wait for it) */
  VG_SLOT_REMOTE = 8,    /* `remote` holds a complete record */
  VG_SLOT_EXPIRED = 16,  /* a remote timed out: later remotes do not wait */
  VG_SLOT_WAITING = 32   /* published by a begin that waits its turn (atomic.c,
                            begin): its first access has not happened, so
                            remotes neither record nor wait here; new begins
                            on the address queue behind it */
};

struct vg_ar_slot {
  /* ---- first cache line: what every scan and every begin/end touches ---- */
  _Atomic uint32_t state; /* VG_SLOT_* */
  /* Waiters sleep on this word (FUTEX_WAIT with the value they saw); the
   * owner bumps it when the slot is released and wakes them if `waiters`. */
  _Atomic uint32_t futex;
  _Atomic uint32_t waiters;  /* threads sleeping (or about to) on `futex` */
  uint32_t owner_tid;        /* kernel thread id of the owner */
  uintptr_t addr;            /* first byte of the AR's variable */
  uint32_t len;              /* bytes covered (1..8, VG_AR_BIG_LEN for size 0) */
  uint32_t ar;               /* AR id (index into the program's ars) */
  uint8_t first_kind;        /* VIGIL_AR_READ or VIGIL_AR_WRITE */
  uint8_t watch;             /* remote kinds that can break it */
  uint8_t armed;             /* the watch backend armed it */
  /* `saved` is final (a begin_read sets it after its read, which follows
   * the publication; a checked write that raced with it waits for this) */
  _Atomic uint8_t saved_ready;
  /* a remote stopped waiting because the owner slept in one of the
   * program's futex waits (atomic_slots.c, vg_slot_wait): its wait in ms */
  _Atomic uint8_t cut_ms;
  _Atomic uint32_t repeats;  /* remote accesses after the recorded one */
  uint64_t saved;            /* the variable's value after the first local access */
  uint64_t begin_ns;         /* only in find mode or when a remote is recorded: 0 */
  void *owner;               /* the owner's per-thread state (core only) */
  /* ---- the backend's ---- */
  void *backend;
  uintptr_t backend_word;
  /* ---- cold: the remote access ---- */
  struct vg_ar_remote remote;
} __attribute__((aligned(64)));

/* The table.  vg_ar_slot_hw: slots [0, hw) may be in use (scans stop there). */
extern struct vg_ar_slot vg_ar_slots[VG_AR_SLOTS];
extern _Atomic uint32_t vg_ar_slot_hw;

/* The configuration the backend may read (valid after register). */
struct vg_atomic_config {
  int mode;           /* enum vg_atomic_mode */
  int detector;       /* enum vg_atomic_detector, after fallbacks */
  long timeout_ms;    /* VIGIL_ATOMIC_TIMEOUT_MS */
  long runnable_ms;   /* VIGIL_ATOMIC_RUNNABLE_MS: the longest wait for an
                         owner that is runnable (atomic_slots.c, vg_slot_wait) */
  long blocked_ms;    /* VIGIL_ATOMIC_BLOCKED_MS: the wait for an owner that
                         sleeps on the program's futex (0: no look) */
  long pause_ms;      /* VIGIL_ATOMIC_PAUSE_MS (find mode) */
  double pause_rate;  /* VIGIL_ATOMIC_PAUSE_RATE (find mode) */
  double pause_share; /* VIGIL_ATOMIC_PAUSE_SHARE: of a thread's time, at most */
  const char *whitelist; /* VIGIL_ATOMIC_WHITELIST, NULL if unset */
};
extern struct vg_atomic_config vg_atomic_config;
extern const struct vigil_atomic_program *vg_atomic_prog; /* NULL: off */

/* The variable as one access of its width (1, 2, 4 or 8 bytes, naturally
 * aligned): the begin_read's read, a trap's or a checked write's undo
 * (compare-and-swap `seen` -> `want`: a write made meanwhile must not be
 * lost) and the redo. */
static inline uint64_t vg_load_n(uintptr_t p, uint32_t len) {
  switch (len) {
  case 1: return __atomic_load_n((uint8_t *)p, __ATOMIC_SEQ_CST);
  case 2: return __atomic_load_n((uint16_t *)p, __ATOMIC_SEQ_CST);
  case 4: return __atomic_load_n((uint32_t *)p, __ATOMIC_SEQ_CST);
  default: return __atomic_load_n((uint64_t *)p, __ATOMIC_SEQ_CST);
  }
}

static inline int vg_cas_n(uintptr_t p, uint32_t len, uint64_t seen, uint64_t want) {
  switch (len) {
  case 1: { uint8_t e = (uint8_t)seen; return __atomic_compare_exchange_n((uint8_t *)p, &e, (uint8_t)want, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); }
  case 2: { uint16_t e = (uint16_t)seen; return __atomic_compare_exchange_n((uint16_t *)p, &e, (uint16_t)want, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); }
  case 4: { uint32_t e = (uint32_t)seen; return __atomic_compare_exchange_n((uint32_t *)p, &e, (uint32_t)want, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); }
  default: { uint64_t e = seen; return __atomic_compare_exchange_n((uint64_t *)p, &e, want, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); }
  }
}

static inline uint64_t vg_exchange_n(uintptr_t p, uint32_t len, uint64_t v) {
  switch (len) {
  case 1: return __atomic_exchange_n((uint8_t *)p, (uint8_t)v, __ATOMIC_SEQ_CST);
  case 2: return __atomic_exchange_n((uint16_t *)p, (uint16_t)v, __ATOMIC_SEQ_CST);
  case 4: return __atomic_exchange_n((uint32_t *)p, (uint32_t)v, __ATOMIC_SEQ_CST);
  default: return __atomic_exchange_n((uint64_t *)p, v, __ATOMIC_SEQ_CST);
  }
}

/* Whether a remote access that finds slot s active waits for its end. */
static inline int vg_atomic_would_hold(const struct vg_ar_slot *s) {
  return (vg_atomic_config.mode == VG_AM_PREVENT || vg_atomic_config.mode == VG_AM_FIND) &&
         !(atomic_load_explicit(&s->state, memory_order_relaxed) & VG_SLOT_EXPIRED);
}

/* ---- the backend's hooks (weak no-ops in atomic.c) ---------------------- */
int vg_atomic_watch_init(void);
int vg_atomic_watch_arm(struct vg_ar_slot *s);
void vg_atomic_watch_release(struct vg_ar_slot *s);
void vg_atomic_watch_thread_start(void);
void vg_atomic_watch_thread_exit(void);
void vg_atomic_watch_fork_child(void);

/* Return values of vg_atomic_remote. */
enum {
  VG_REMOTE_NOT_HELD = 0, /* recorded (or ignored); the access goes ahead now */
  VG_REMOTE_HELD = 1,     /* waited until the AR ended: re-execute it now    */
  VG_REMOTE_TIMED_OUT = 2 /* waited VIGIL_ATOMIC_TIMEOUT_MS; the AR still runs */
};

/* A remote access of `kind` at `pc` to slot s, seen by the backend's
 * SIGTRAP handler on the accessing thread.  Records it (the first wins);
 * when can_hold and vg_atomic_would_hold(s), sleeps on the slot's futex
 * until the AR ends or the timeout.  Async-signal-safe: atomics, gettid,
 * clock_gettime, futex; no frames but `pc` are captured.  Returns
 * VG_REMOTE_*.  Ignored (NOT_HELD) when s is not active or is the calling
 * thread's own. */
int vg_atomic_remote(struct vg_ar_slot *s, unsigned kind, uintptr_t pc, int can_hold);

/* ---- inside the core ------------------------------------------------------- */
/* Per-thread state (atomic.c): which ARs this thread holds, in which slot.
 * A small array scanned linearly: 16 entries fit in two cache lines and a
 * scan beats any hashing at this size. */
enum { VG_HOT_BEGINS, VG_HOT_ENDS, VG_HOT_WHITELISTED, VG_HOT_N };
struct vg_ar_thread {
  uint32_t tid;      /* 0 until the thread's first begin */
  uint32_t n;        /* entries in use in held_ar/held_slot */
  uint32_t hint;     /* the slot this thread claimed last: tried first */
  uint8_t exited;    /* the exit destructor ran: hooks are ignored */
  uint8_t busy;      /* the core is running on this thread */
  uint8_t listed;    /* on the live list (stats) */
  /* the last remote_scan went ahead of an AR it found (atomic.c) */
  uint8_t scan_ahead;
  uint32_t held_ar[VG_AR_PER_THREAD];
  struct vg_ar_slot *held_slot[VG_AR_PER_THREAD];
  /* the begin of held entry i went ahead of another thread's AR on its
   * address (a timeout, a forced begin), instead of waiting it out */
  uint8_t held_met[VG_AR_PER_THREAD];
  uint64_t rng;      /* find mode's pause draws (xorshift) */
  uint64_t pause_since_ns, paused_ns; /* find mode's pause budget (atomic.c) */
  /* verdicts of ARs that ended while this thread held others (atomic.c,
   * judge): reported once it holds none; malloc'd on first use */
  struct vg_ar_verdict *pending;
  uint32_t npending;
  uint64_t hot[VG_HOT_N]; /* counters of the hot path, summed at exit */
  struct vg_ar_thread *next; /* live list */
};
extern _Thread_local struct vg_ar_thread vg_ar_self;

/* atomic.c: reports the verdicts this thread deferred (at exit too) */
void vg_atomic_flush_pending(struct vg_ar_thread *t);
/* A checked write whose second check found an AR (atomic_undo.c). */
void vg_atomic_undo_write(struct vg_ar_thread *t, uintptr_t p, uint32_t len, uint32_t site,
                          uint64_t old, uint64_t value);

/* The thread wrote v to [p, p+len) while holding ARs there (a checked
 * write of its own, a write that begins or ends another of its ARs): the
 * value an AR's second read expects is now v (atomic_settle.c). */
void vg_atomic_own_write(struct vg_ar_thread *t, uintptr_t p, uint32_t len, uint64_t v);
/* A second read of held slot s saw v, not the value the AR left there: a
 * remote write may be between its exchange and its undo.  Waits a little
 * for the undo and returns the value then (atomic_settle.c). */
uint64_t vg_atomic_settle(struct vg_ar_slot *s, uintptr_t p, uint32_t len, uint64_t v);

/* atomic_slots.c */
uint32_t vg_atomic_tid(void);
uint64_t vg_atomic_now_ns(void);
struct vg_ar_slot *vg_slot_claim(struct vg_ar_thread *t, uintptr_t addr, uint32_t len);
/* ACTIVE, then the filter; nonzero when a bucket already counted another
 * slot (look for an AR that began at the same time). */
unsigned vg_slot_publish(struct vg_ar_slot *s, uint32_t flags);
void vg_slot_release(struct vg_ar_slot *s);
/* Records a remote access in s if it is still generation gen: 1 recorded,
 * 0 a repeat, -1 gone.  capture: take the caller's stack (not in a signal
 * handler: backtrace() is not async-signal-safe). */
int vg_slot_record(struct vg_ar_slot *s, uint32_t gen, unsigned kind, unsigned later, unsigned via,
                   uint32_t site, uintptr_t pc, int capture, enum vg_remote_held held);
/* 1 when the AR of generation gen ended, 0 on timeout (s is EXPIRED). */
int vg_slot_wait(struct vg_ar_slot *s, uint32_t gen);
void vg_slots_after_fork(uint32_t self_tid);
/* atomic.c: the caller's raw stack (backtrace), innermost first */
int vg_atomic_capture(uintptr_t *frames, int max);

static inline int vg_overlaps(uintptr_t a, uint32_t alen, uintptr_t b, uint32_t blen) {
  return a < b + blen && b < a + alen;
}

/* atomic_config.c */
/* 0 when the program's tables are taken (vg_ar_n etc. not yet set). */
int vg_atomic_configure(const struct vigil_atomic_program *p);
extern uint8_t *vg_ar_skip;   /* per AR: 1 = whitelisted */
extern uint8_t *vg_ar_paused; /* per AR: find mode paused it once */
/* Counts of the registered program (0 before registration: every hook
 * returns at once); set last, with release, by __vigil_atomic_register. */
extern uint32_t vg_ar_n, vg_ar_n_ends, vg_ar_n_sites;
void vg_atomic_train_note(uint32_t ar, const char *pattern);
void vg_atomic_train_write(void);

/* atomic_report.c: the verdict of one ended AR with a remote */
struct vg_ar_verdict {
  struct vg_ar_slot slot; /* a copy taken at the end, before the release */
  uint32_t end;           /* the ends[] index of the second access (self loop: none) */
  uint8_t second_kind;
  uint8_t self_loop;      /* the second access is a new begin of the AR */
  uint8_t prevented;      /* the remote was held until this end */
  uint8_t timed_out;      /* the remote was held, then let go by the timeout
                             (or earlier, slot.cut_ms, the owner asleep) */
  uint64_t waited_ns;     /* how long the remote was held (so far) */
  char pattern[4];        /* "RWR", ... */
};
/* The pattern of (first, remote, second) into out; 1 if non-serializable
 * (RWR, WWR, WRW, RWW; a remote read-modify-write always is). */
int vg_atomic_pattern(unsigned first, unsigned remote, unsigned second, char out[4]);
/* Reports (or counts, deduplicates, notes for training) one violation. */
void vg_atomic_report(const struct vg_ar_verdict *v);

/* atomic_stats.c */
enum vg_atomic_counter {
  VG_AC_BEGINS, VG_AC_ENDS, VG_AC_CLEARS, VG_AC_WHITELISTED, VG_AC_NO_SLOT,
  VG_AC_NO_WATCH, VG_AC_THREAD_FULL, VG_AC_REMOTES, VG_AC_REMOTE_REPEATS, VG_AC_HELD,
  VG_AC_TIMEOUTS, VG_AC_VIOLATIONS, VG_AC_PREVENTED, VG_AC_REPEATED_REPORTS,
  VG_AC_SERIALIZABLE, VG_AC_PAUSES, VG_AC_SELF_LOOPS, VG_AC_COLLISIONS,
  VG_AC_FORCED, VG_AC_UNDONE, VG_AC_NOT_UNDONE, VG_AC_SETTLED, VG_AC_UNSETTLED, VG_AC_QUEUED,
  VG_AC_EXTENDED, VG_AC_CUT, VG_AC_PAUSES_SKIPPED, VG_AC_ENDS_AHEAD, VG_AC_N
};
void vg_atomic_count(enum vg_atomic_counter c, uint64_t n);
void vg_atomic_stats_thread_start(struct vg_ar_thread *t);
void vg_atomic_stats_thread_exit(struct vg_ar_thread *t);
void vg_atomic_stats_after_fork(struct vg_ar_thread *t);
void vg_atomic_stats_at_exit(void);

#endif /* VIGIL_ATOMIC_INTERNAL_H */
