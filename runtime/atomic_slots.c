/*
 * atomic_slots.c — the global table of active atomic regions, the inline
 * filter, and the futex protocol remotes wait with (atomic_internal.h).
 *
 * Why a fixed table and a CAS per claim: begin/end run millions of times a
 * second and must not take a lock or make a system call; a remote access
 * must find every AR of every thread on its address.  A 64-entry array of
 * cache-line slots gives both: a thread claims the slot it used last (its
 * `hint`, so in steady state the line stays in its own cache and the CAS
 * does not bounce), and a scan walks at most the high-water mark.  A hash
 * by address would make the scan shorter but a claim would then contend on
 * whichever slot the address hashes to; with a handful of ARs live at once
 * the linear scan is a few dozen loads and only the slow paths (a conflict
 * in the filter, a checked access) pay it.
 *
 * Memory order, the one subtle point: the owner stores ACTIVE and then
 * increments the filter with a sequentially consistent RMW; a remote's
 * begin increments then scans.  Of two begins on one address at least one
 * sees the other (the RMWs on the filter byte are totally ordered).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "atomic_internal.h"

volatile uint32_t __vigil_atomic_filter[VIGIL_ATOMIC_FILTER_SIZE];
struct vg_ar_slot vg_ar_slots[VG_AR_SLOTS];
_Atomic uint32_t vg_ar_slot_hw;

uint32_t vg_atomic_tid(void) {
  /* the backend's handler may run on a thread that never began an AR */
  if (vg_ar_self.tid)
    return vg_ar_self.tid;
  return (uint32_t)syscall(SYS_gettid);
}

uint64_t vg_atomic_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts); /* vDSO; async-signal-safe */
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- the filter ------------------------------------------------------------ */

/* Adds one AR (delta > 0) to every bucket [addr, addr+len) touches, or
 * ends one there (the count down, the end count up: atomic.h), and returns
 * the largest count a bucket had before.  A bucket counts the slots
 * covering it; with VG_AR_SLOTS (64) slots and each slot counting once per
 * bucket the count never exceeds 64, so it cannot carry into the end count
 * (no saturation logic needed). */
static unsigned filter_bucket_add(uintptr_t granule, int delta) {
  volatile uint32_t *b = &__vigil_atomic_filter[granule & (VIGIL_ATOMIC_FILTER_SIZE - 1)];
  uint32_t add = delta > 0 ? 1u : VIGIL_ATOMIC_FILTER_END;
  return __atomic_fetch_add(b, add, __ATOMIC_SEQ_CST) & VIGIL_ATOMIC_FILTER_COUNT;
}

static unsigned filter_add(uintptr_t addr, uint32_t len, int delta) {
  unsigned most = 0;
  uintptr_t first = addr >> 3, last = (addr + len - 1) >> 3;
  if (first == last) /* an aligned scalar: one bucket */
    return filter_bucket_add(first, delta);
  for (uintptr_t g = first; g <= last; g++) {
    unsigned old = filter_bucket_add(g, delta);
    if (old > most)
      most = old;
  }
  return most;
}

/* ---- claim, publish, release ------------------------------------------------- */

static int try_claim(struct vg_ar_slot *s) {
  uint32_t expected = VG_SLOT_FREE;
  return atomic_load_explicit(&s->state, memory_order_relaxed) == VG_SLOT_FREE &&
         atomic_compare_exchange_strong_explicit(&s->state, &expected, VG_SLOT_CLAIMED,
                                                 memory_order_acquire, memory_order_relaxed);
}

/* A free slot, CLAIMED for the caller (fields to fill, then publish), or
 * NULL when all 64 are in use (the caller counts the AR unmonitored). */
struct vg_ar_slot *vg_slot_claim(struct vg_ar_thread *t, uintptr_t addr, uint32_t len) {
  (void)addr, (void)len;
  uint32_t i = t->hint;
  if (i >= VG_AR_SLOTS || !try_claim(&vg_ar_slots[i])) {
    for (i = 0; i < VG_AR_SLOTS; i++)
      if (try_claim(&vg_ar_slots[i]))
        break;
    if (i == VG_AR_SLOTS)
      return NULL;
    t->hint = i;
  }
  uint32_t hw = atomic_load_explicit(&vg_ar_slot_hw, memory_order_relaxed);
  while (hw < i + 1 && !atomic_compare_exchange_weak_explicit(
                           &vg_ar_slot_hw, &hw, i + 1, memory_order_relaxed,
                           memory_order_relaxed))
    ;
  return &vg_ar_slots[i];
}

/* Makes a filled-in CLAIMED slot visible: ACTIVE, then the filter.
 * Returns nonzero when some bucket already counted another slot (the
 * caller must look for a conflicting AR that began at the same time). */
unsigned vg_slot_publish(struct vg_ar_slot *s, uint32_t flags) {
  atomic_store_explicit(&s->state, VG_SLOT_ACTIVE | flags, memory_order_release);
  return filter_add(s->addr, s->len, +1);
}

static long futex(_Atomic uint32_t *w, int op, uint32_t val, const struct timespec *ts) {
  return syscall(SYS_futex, (uint32_t *)w, op | FUTEX_PRIVATE_FLAG, val, ts, NULL, 0);
}

/* Frees a slot the caller owns (in any phase): the filter first, so that
 * a checked access that finds its bucket empty is right; then the new
 * generation, which every waiter compares with; then FREE; then the wake,
 * only if someone sleeps (a system call nobody needs is the one cost the
 * common end must not have). */
void vg_slot_release(struct vg_ar_slot *s) {
  filter_add(s->addr, s->len, -1);
  atomic_fetch_add_explicit(&s->futex, 1, memory_order_seq_cst);
  atomic_store_explicit(&s->state, VG_SLOT_FREE, memory_order_release);
  if (atomic_load_explicit(&s->waiters, memory_order_seq_cst))
    futex(&s->futex, FUTEX_WAKE, INT32_MAX, NULL);
}

/* ---- remotes: record, wait ------------------------------------------------------ */

/* Records the remote access in slot s if s is still the instance of
 * generation `gen`, ACTIVE, and has no record yet.  frames[0..nframes) is
 * the remote's stack, captured by the caller before (the owner's end waits
 * while RECORDING is set, so nothing slow happens in that window).
 * Returns 1 recorded, 0 a repeat (counted in s->repeats), -1 the AR is
 * gone or ending. */
static int record(struct vg_ar_slot *s, uint32_t gen, const struct vg_ar_remote *r) {
  uint32_t st = atomic_load_explicit(&s->state, memory_order_acquire);
  for (;;) {
    if ((st & VG_SLOT_PHASE) != VG_SLOT_ACTIVE || (st & VG_SLOT_WAITING) ||
        atomic_load_explicit(&s->futex, memory_order_acquire) != gen)
      return -1;
    if (st & (VG_SLOT_RECORDING | VG_SLOT_REMOTE)) {
      atomic_fetch_add_explicit(&s->repeats, 1, memory_order_relaxed);
      return 0;
    }
    if (atomic_compare_exchange_weak_explicit(&s->state, &st, st | VG_SLOT_RECORDING,
                                              memory_order_acquire, memory_order_acquire))
      break;
  }
  /* The CAS may have hit a new instance that reused the slot with the
   * same state value (ABA): the generation tells.  While RECORDING is set
   * the owner cannot release, so the check below is final. */
  if (atomic_load_explicit(&s->futex, memory_order_acquire) != gen) {
    atomic_fetch_and_explicit(&s->state, ~(uint32_t)VG_SLOT_RECORDING, memory_order_release);
    return -1;
  }
  s->remote = *r;
  /* RECORDING off, REMOTE on, in one step */
  atomic_fetch_xor_explicit(&s->state, VG_SLOT_RECORDING | VG_SLOT_REMOTE,
                            memory_order_release);
  return 1;
}

int vg_slot_record(struct vg_ar_slot *s, uint32_t gen, unsigned kind, unsigned later, unsigned via,
                   uint32_t site, uintptr_t pc, int capture, enum vg_remote_held held) {
  /* A plain look first: the remote's stack is captured only for the first
   * remote of an AR (rare), and never inside the RECORDING window. */
  uint32_t st = atomic_load_explicit(&s->state, memory_order_relaxed);
  if (st & (VG_SLOT_RECORDING | VG_SLOT_REMOTE)) {
    if ((st & VG_SLOT_PHASE) != VG_SLOT_ACTIVE ||
        atomic_load_explicit(&s->futex, memory_order_acquire) != gen)
      return -1;
    atomic_fetch_add_explicit(&s->repeats, 1, memory_order_relaxed);
    return 0;
  }
  struct vg_ar_remote r;
  memset(&r, 0, sizeof r);
  r.tid = vg_atomic_tid();
  r.kind = (uint8_t)kind;
  r.later = (uint8_t)later;
  r.via = (uint8_t)via;
  r.held = (uint8_t)held;
  r.site = site;
  r.pc = pc;
  r.time_ns = vg_atomic_now_ns();
  prctl(PR_GET_NAME, r.thread_name); /* a system call: signal-safe */
  if (capture)
    r.nframes = vg_atomic_capture(r.frames, VG_AR_REMOTE_FRAMES);
  else if (pc)
    r.frames[0] = pc, r.nframes = 1;
  return record(s, gen, &r);
}

/* Reads /proc/self/task/TID/<file> into buf (NUL-terminated); 0 on
 * failure.  open, read and close only: async-signal-safe. */
static int read_task_file(uint32_t tid, const char *file, char *buf, size_t size) {
  char path[64] = "/proc/self/task/", digits[12];
  int n = 0, at = 16;
  do
    digits[n++] = (char)('0' + tid % 10);
  while ((tid /= 10) && n < (int)sizeof digits);
  while (n)
    path[at++] = digits[--n];
  path[at++] = '/';
  for (const char *f = file; *f && at < (int)sizeof path - 1;)
    path[at++] = *f++;
  path[at] = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  ssize_t len = read(fd, buf, size - 1);
  close(fd);
  if (len <= 0)
    return 0;
  buf[len] = 0;
  return 1;
}

/* The nanoseconds thread `tid` has run on a CPU (schedstat's first field)
 * if it is runnable now ('R' in stat, after the last ')' of the name);
 * UINT64_MAX if it is not runnable or the files cannot be read. */
static uint64_t runnable_ns(uint32_t tid) {
  char buf[512];
  if (!read_task_file(tid, "stat", buf, sizeof buf))
    return UINT64_MAX;
  const char *close_paren = strrchr(buf, ')');
  if (!close_paren || close_paren[1] != ' ' || close_paren[2] != 'R')
    return UINT64_MAX;
  if (!read_task_file(tid, "schedstat", buf, sizeof buf))
    return UINT64_MAX;
  uint64_t ns = 0;
  for (const char *c = buf; *c >= '0' && *c <= '9'; c++)
    ns = ns * 10 + (uint64_t)(*c - '0');
  return ns;
}

/* Whether thread `tid` sleeps in a futex wait that is not one of vigil's
 * slot waits: one of the program's locks, condition variables or
 * semaphores (/proc/self/task/TID/syscall: the number, then the first
 * argument, the futex word). */
static int waits_on_program(uint32_t tid) {
  char buf[256];
  if (!read_task_file(tid, "syscall", buf, sizeof buf))
    return 0;
  const char *c = buf;
  long nr = 0;
  while (*c >= '0' && *c <= '9')
    nr = nr * 10 + (*c++ - '0');
  if (c == buf || nr != SYS_futex || c[0] != ' ' || c[1] != '0' || c[2] != 'x')
    return 0;
  uintptr_t word = 0;
  for (c += 3;; c++) {
    int d = *c >= '0' && *c <= '9' ? *c - '0' : *c >= 'a' && *c <= 'f' ? *c - 'a' + 10 : -1;
    if (d < 0)
      break;
    word = word << 4 | (uintptr_t)d;
  }
  return !(word >= (uintptr_t)vg_ar_slots && word < (uintptr_t)(vg_ar_slots + VG_AR_SLOTS));
}

/* Sleeps until slot s leaves generation `gen` (the AR ended: 1) or the
 * timeout (0; the slot is marked EXPIRED so that later remotes do not wait
 * on an AR whose end may never come, as in the paper's Figure 5).
 *
 * The timeout is for an owner that will not reach its end soon: blocked
 * (on a lock this thread holds, on I/O, past a missing end) or spinning
 * on something this thread would do.  An owner that is runnable but
 * hardly runs was preempted, and will end its AR once it gets a CPU; on a
 * loaded machine (2 cores, a parallel test suite) that takes more than
 * 10 ms easily, and a wait that gave up then let the two regions overlap
 * (apache-25520: 2 of 60 runs lost a log line under the full suite).  So
 * at each timeout the owner's scheduler state is read: a runnable owner
 * is waited for one more timeout, and again while it ran less than half
 * of the last one, up to VIGIL_ATOMIC_RUNNABLE_MS in all (0: the paper's
 * plain timeout).  A spinning or computing owner thus costs two timeouts
 * instead of one.
 *
 * The other way round, an owner that sleeps in one of the program's futex
 * waits (a lock or condition wait) inside its AR waits for another thread,
 * often this one: measured on pigz, a compress thread's region stayed open
 * while it waited for its next job, and the main thread's write of the
 * next job, held by it, could only end by the timeout (85 a second, each
 * 10 ms).  So every VIGIL_ATOMIC_BLOCKED_MS (default 1; 0: never) the
 * waiter looks, and goes ahead at once if so (counted as a timeout and as
 * `waits_cut`).  A wait of vigil's own (the owner held as a remote
 * on another AR) is bounded and not cut.  Only atomics, clock_gettime,
 * futex and open/read/close: usable in a signal handler. */
int vg_slot_wait(struct vg_ar_slot *s, uint32_t gen) {
  uint64_t step = (uint64_t)vg_atomic_config.timeout_ms * 1000000u, limit = step;
  uint64_t cap = (uint64_t)vg_atomic_config.runnable_ms * 1000000u;
  uint64_t start = vg_atomic_now_ns();
  uint32_t owner = s->owner_tid;
  uint64_t ran = UINT64_MAX; /* the owner's run time at the last extension */
  uint64_t grace = (uint64_t)vg_atomic_config.blocked_ms * 1000000u;
  uint64_t look = grace ? grace : UINT64_MAX; /* when to look at the owner next */
  int ended = 0, extended = 0, cut = 0;
  atomic_fetch_add_explicit(&s->waiters, 1, memory_order_seq_cst);
  for (;;) {
    if (atomic_load_explicit(&s->futex, memory_order_seq_cst) != gen) {
      ended = 1;
      break;
    }
    uint64_t spent = vg_atomic_now_ns() - start;
    if (spent >= look && spent < limit) {
      look = spent + grace;
      if (waits_on_program(owner) && atomic_load_explicit(&s->futex, memory_order_seq_cst) == gen)
        limit = spent, cut = 1;
    }
    if (spent >= limit && limit < cap && !cut) {
      uint64_t now_ran = runnable_ns(owner);
      if (now_ran != UINT64_MAX && (ran == UINT64_MAX || now_ran - ran < step / 2) &&
          atomic_load_explicit(&s->futex, memory_order_seq_cst) == gen) {
        limit = limit + step < cap ? limit + step : cap;
        ran = now_ran;
        extended = 1;
      }
    }
    if (spent >= limit)
      break;
    /* an extension can move the limit past a look that is already due */
    uint64_t left = (look > spent && look < limit ? look : limit) - spent;
    struct timespec ts = {(time_t)(left / 1000000000u), (long)(left % 1000000000u)};
    futex(&s->futex, FUTEX_WAIT, gen, &ts); /* EAGAIN, EINTR, ETIMEDOUT: look again */
  }
  atomic_fetch_sub_explicit(&s->waiters, 1, memory_order_relaxed);
  if (extended)
    vg_atomic_count(VG_AC_EXTENDED, 1);
  if (cut)
    vg_atomic_count(VG_AC_CUT, 1);
  if (!ended) {
    if (cut)
      atomic_store_explicit(&s->cut_ms, (uint8_t)(limit < 254000000u ? limit / 1000000u + 1 : 255),
                            memory_order_relaxed); /* rounded up: never 0 */
    uint32_t st = atomic_load_explicit(&s->state, memory_order_relaxed);
    while ((st & VG_SLOT_PHASE) == VG_SLOT_ACTIVE && !(st & VG_SLOT_EXPIRED) &&
           !atomic_compare_exchange_weak_explicit(&s->state, &st, st | VG_SLOT_EXPIRED,
                                                  memory_order_release, memory_order_relaxed))
      ;
    /* a new instance may have taken the slot meanwhile (ABA): not ours */
    if (atomic_load_explicit(&s->futex, memory_order_acquire) != gen)
      atomic_fetch_and_explicit(&s->state, ~(uint32_t)VG_SLOT_EXPIRED, memory_order_relaxed);
  }
  return ended;
}

/* ---- fork ------------------------------------------------------------------------ */

/* In the child only the forking thread exists: its slots stay (its ARs go
 * on; the owner's tid is the child's now), every other thread's slot is
 * dropped without a verdict, nobody waits, and the filter is rebuilt from
 * what is left. */
void vg_slots_after_fork(uint32_t self_tid) {
  memset((void *)__vigil_atomic_filter, 0, sizeof __vigil_atomic_filter);
  for (unsigned i = 0; i < VG_AR_SLOTS; i++) {
    struct vg_ar_slot *s = &vg_ar_slots[i];
    uint32_t st = atomic_load_explicit(&s->state, memory_order_relaxed);
    atomic_store_explicit(&s->waiters, 0, memory_order_relaxed);
    if (st == VG_SLOT_FREE)
      continue;
    if (s->owner != &vg_ar_self || (st & VG_SLOT_PHASE) != VG_SLOT_ACTIVE) {
      atomic_fetch_add_explicit(&s->futex, 1, memory_order_relaxed);
      atomic_store_explicit(&s->state, VG_SLOT_FREE, memory_order_relaxed);
      continue;
    }
    /* a remote of the parent that was half-way through recording is gone */
    if (st & VG_SLOT_RECORDING)
      atomic_store_explicit(&s->state, st & ~(uint32_t)VG_SLOT_RECORDING, memory_order_relaxed);
    s->owner_tid = self_tid;
    filter_add(s->addr, s->len, +1);
  }
}
