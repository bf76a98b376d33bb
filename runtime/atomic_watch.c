/*
 * atomic_watch.c — Kivati's hardware-watchpoint detector (§3.2-3.4) from
 * user space on stock Linux (5.13+): the debug registers as perf events
 * (perf_event_open(PERF_TYPE_BREAKPOINT) with sigtrap=1, so a hit is a
 * synchronous SIGTRAP on the accessing thread, si_code TRAP_PERF, our
 * sig_data in si_perf_data), armed for an AR's variable at its begin and
 * released at its end.  The trap side is atomic_watch_trap.c.
 *
 * One inherited event per debug register, or per-thread events?
 * "Watch for the threads other than the AR's owner" can be built two ways:
 *  (a) per register, one event created at init with inherit=1 and
 *      inherit_thread=1 (Google's gwpsan does this): every thread created
 *      later gets a child event, and PERF_EVENT_IOC_MODIFY_ATTRIBUTES on
 *      the parent walks the children (perf_event_modify_attr), so one
 *      ioctl arms the register in every thread.  Verified here: a thread
 *      created before the ioctl traps after it.  The owner is armed too and
 *      its own traps are filtered in the handler;
 *  (b) per thread, 4 events of its own (pid = its tid), and an arm is one
 *      ioctl on every other thread's event; the owner's stays off, so it
 *      never traps (the paper's third optimisation).
 * Measured on this VM (2 vCPUs, kernel 6.18; noisy, other builds running):
 *   MODIFY_ATTRIBUTES, no other thread            2.3-3 us
 *   ... inherited, 100 / 1000 sleeping threads    61 us / 1.09 ms (0.6-1.1 us per child:
 *                                                 the kernel calls each child's CPU)
 *   ... per-thread, on another thread's event     one syscall + the same cross-CPU
 *                                                 call per thread (49-89 us each under load)
 *   one trap + signal delivery                    19-33 us
 *   thread creation, 4 inherited events vs none   within the noise (45-85 us either way)
 * Either way an arm is O(threads) in the kernel (debug registers are per
 * task); (a) does it in one system call.  (a) is chosen because:
 *  - coverage: a remote access typically comes from a thread that never
 *    begins an AR (that is why watchpoints are needed at all), and the
 *    core calls vg_atomic_watch_thread_start only on a thread's first
 *    begin; (b) would miss those threads entirely, or need a pthread_create
 *    wrapper and still miss threads made with clone() or before init;
 *  - 4 file descriptors in all, not 4 per thread (with (b), 1000 threads
 *    need 4000 descriptors: past the usual soft RLIMIT_NOFILE of 1024);
 *  - reuse across owners: a register armed for an address serves the next
 *    AR on it whatever thread begins it; under (b) a new owner means two
 *    ioctls (arm the old owner's, disarm the new one's);
 * at the price of the owner's own accesses trapping (typically A and B:
 * two traps, ~40 us per armed AR), filtered by owner tid in the handler.
 *
 * §3.4 here: the AR table is the core's slot table, in user space; the
 * register table (which register watches what, which slot uses it) is
 * below.  A begin whose address, length and kinds a register already
 * watches (armed and released: lazy) takes it with no system call.  A
 * release only marks the register free; the hardware stays armed.  A trap
 * on a register that is free is stale: it is ignored and the register is
 * turned off then (one ioctl), unless a begin re-armed it first.
 * Measured (/tmp bench, this VM, 2000 ARs each): a write-first AR on an
 * address still armed 0.10 us (no system call, no trap); with its two
 * local accesses 34 us (two own traps); a read-first AR alternating over
 * 8 addresses (an ioctl per begin) 16 us, but over 2 lazily armed ones
 * 40 us: the core's begin reads the value it saves while the released
 * register still watches it, and that read traps (filtered: the core is
 * busy).  Lazy release pays off for ARs whose begin does not read.
 * Registers are claimed with a try-lock per register (`busy`), never
 * waited for, so a signal handler on the same thread cannot deadlock.
 *
 * Limits (docs/atomic.md): threads that exist before init are not watched
 * (init runs from the program's constructor, before main); a variable
 * must fit one naturally aligned 1/2/4/8-byte block (else the AR is
 * unmonitored); kernel accesses (read() into the variable) do not trap
 * (exclude_kernel); a debugger's hardware watchpoints compete for the same
 * four registers (VIGIL_ATOMIC_WATCH_REGS leaves some free); a program
 * that closes every descriptor closes ours (arms then fail: unmonitored).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "atomic_watch.h"
#include "internal.h"

struct vg_wreg vg_wregs[VG_WATCH_REGS];
int vg_nwregs;
_Atomic uint64_t vg_watch_counts[VG_WC_N];

/* A disarmed event still needs a valid address: this word. */
static uint64_t parking;

static void attr_for(struct perf_event_attr *a, uintptr_t addr, uint32_t len, uint32_t type,
                     int disabled, uint64_t sig_data) {
  memset(a, 0, sizeof *a);
  a->type = PERF_TYPE_BREAKPOINT;
  a->size = sizeof *a;
  a->sample_period = 1;
  a->bp_addr = addr;
  a->bp_len = len;
  a->bp_type = type;
  a->disabled = disabled;
  a->inherit = 1;
  a->inherit_thread = 1; /* threads only: fork children get their own (fork_child) */
  a->remove_on_exec = 1; /* sigtrap requires it; an exec'd program owes us nothing */
  a->sigtrap = 1;
  a->sig_data = sig_data;
  a->exclude_kernel = 1;
  a->exclude_hv = 1;
}

static int open_event(void) {
  struct perf_event_attr a;
  attr_for(&a, (uintptr_t)&parking, HW_BREAKPOINT_LEN_8, HW_BREAKPOINT_W, 1, 0);
  return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* The one-line reason perf_event_open gave; NULL for "try the next". */
static const char *why(int err) {
  static char buf[200];
  switch (err) {
  case EACCES:
  case EPERM: {
    int level = -9;
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
    if (f) {
      if (fscanf(f, "%d", &level) != 1)
        level = -9;
      fclose(f);
    }
    snprintf(buf, sizeof buf,
             "perf_event_open is not permitted (kernel.perf_event_paranoid=%d; "
             "user-space breakpoints need <= 2, or CAP_PERFMON)", level);
    return buf;
  }
  case ENOENT: case EOPNOTSUPP: case ENODEV: case ENOSYS:
    return "this machine or VM offers no hardware breakpoints to perf (no debug registers?)";
  case ENOSPC:
    return "every debug register is already taken (a debugger's hardware watchpoints?)";
  case EINVAL: case E2BIG:
    return "the kernel does not know perf sigtrap/inherit_thread (Linux 5.13 or later needed)";
  case EMFILE: case ENFILE:
    return "no file descriptor left for the perf events";
  }
  snprintf(buf, sizeof buf, "perf_event_open failed: %s", strerror(err));
  return buf;
}

/* VIGIL_ATOMIC_WATCH_FAIL=EACCES|ENOENT|ENOSPC|EINVAL: a TEST HOOK that
 * makes init fail as perf_event_open would with that error (tests of the
 * fallback on machines that do have breakpoints).  Not for production. */
static int injected_failure(void) {
  const char *v = getenv("VIGIL_ATOMIC_WATCH_FAIL");
  static const struct { const char *name; int err; } names[] = {
      {"EACCES", EACCES}, {"EPERM", EPERM}, {"ENOENT", ENOENT},
      {"ENODEV", ENODEV}, {"ENOSPC", ENOSPC}, {"EINVAL", EINVAL}};
  if (!v || !*v)
    return 0;
  for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
    if (!strcmp(v, names[i].name))
      return names[i].err;
  return EINVAL;
}

/* VIGIL_ATOMIC_WATCH_REGS: how many debug registers to take (1-4; 4).
 * Fewer leave some to a debugger's hardware watchpoints. */
static int wanted_regs(void) {
  return (int)vg_env_number("VIGIL_ATOMIC_WATCH_REGS", 1, VG_WATCH_REGS, VG_WATCH_REGS);
}

/* Opens up to `want` events; the count, *err the first failure. */
static int open_all(int want, int *err) {
  int n = 0;
  *err = 0;
  for (; n < want; n++) {
    int fd = open_event();
    if (fd < 0) {
      *err = errno;
      break;
    }
    vg_wregs[n].fd = fd;
    atomic_store_explicit(&vg_wregs[n].slot, NULL, memory_order_relaxed);
    atomic_store_explicit(&vg_wregs[n].on, 0, memory_order_relaxed);
    atomic_store_explicit(&vg_wregs[n].busy, 0, memory_order_relaxed);
  }
  return n;
}

int vg_atomic_watch_init(void) {
  int err = injected_failure(), n = 0;
  if (!err)
    n = open_all(wanted_regs(), &err);
  if (n == 0) {
    fprintf(stderr, "vigil: atomic regions: hardware watchpoints: %s\n", why(err));
    return -1;
  }
  vg_nwregs = n;
  if (vg_watch_install_handler() != 0) {
    for (int i = 0; i < n; i++)
      close(vg_wregs[i].fd);
    vg_nwregs = 0;
    fprintf(stderr, "vigil: atomic regions: hardware watchpoints: cannot install the "
                    "SIGTRAP handler\n");
    return -1;
  }
  return 0;
}

/* ---- arming -------------------------------------------------------------------- */

/* The naturally aligned 1/2/4/8-byte block covering [addr, addr+len): x86
 * watches only those.  -1 when the variable does not fit one. */
static int hw_range(uintptr_t addr, uint32_t len, uintptr_t *a, uint32_t *l) {
  for (uint32_t w = 1; w <= 8; w <<= 1) {
    uintptr_t base = addr & ~(uintptr_t)(w - 1);
    if (w >= len && addr + len <= base + w) {
      *a = base;
      *l = w;
      return 0;
    }
  }
  return -1;
}

static inline int try_lock(struct vg_wreg *r) {
  uint32_t z = 0;
  return atomic_compare_exchange_strong_explicit(&r->busy, &z, 1, memory_order_acquire,
                                                 memory_order_relaxed);
}
static inline void unlock(struct vg_wreg *r) {
  atomic_store_explicit(&r->busy, 0, memory_order_release);
}

/* A released register whose hardware already watches exactly this. */
static int reuse(struct vg_ar_slot *s, uintptr_t a, uint32_t l, uint32_t type) {
  for (int i = 0; i < vg_nwregs; i++) {
    struct vg_wreg *r = &vg_wregs[i];
    if (atomic_load_explicit(&r->slot, memory_order_relaxed) || r->addr != a || r->len != l ||
        r->type != type || !atomic_load_explicit(&r->on, memory_order_relaxed) || !try_lock(r))
      continue;
    int ok = !atomic_load_explicit(&r->slot, memory_order_relaxed) &&
             atomic_load_explicit(&r->on, memory_order_relaxed) && r->addr == a && r->len == l &&
             r->type == type;
    if (ok) {
      atomic_store_explicit(&r->slot, s, memory_order_release);
      s->backend_word = (uintptr_t)i + 1;
    }
    unlock(r);
    if (ok)
      return 0;
  }
  return -1;
}

/* Configures register r (locked, free) for s: one ioctl, every thread. */
static int configure(struct vg_wreg *r, int i, struct vg_ar_slot *s, uintptr_t a, uint32_t l,
                     uint32_t type) {
  uint32_t gen = (atomic_load_explicit(&r->gen, memory_order_relaxed) + 1) & 0xffffffu;
  atomic_store_explicit(&r->on, 0, memory_order_relaxed);
  r->addr = a;
  r->len = l;
  r->type = type;
  atomic_store_explicit(&r->gen, gen, memory_order_relaxed);
  atomic_store_explicit(&r->slot, s, memory_order_release);
  struct perf_event_attr attr;
  attr_for(&attr, a, l, type, 0, VG_WATCH_SIGDATA(gen, i));
  if (ioctl(r->fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &attr) != 0) {
    atomic_store_explicit(&r->slot, NULL, memory_order_relaxed);
    ioctl(r->fd, PERF_EVENT_IOC_DISABLE, 0);
    return -1;
  }
  atomic_store_explicit(&r->on, 1, memory_order_release);
  s->backend_word = (uintptr_t)i + 1;
  vg_watch_count(VG_WC_ARMS);
  return 0;
}

int vg_atomic_watch_arm(struct vg_ar_slot *s) {
  uintptr_t a;
  uint32_t l;
  unsigned watch = s->watch & (VIGIL_AR_READ | VIGIL_AR_WRITE);
  s->backend_word = 0;
  if (!vg_nwregs || !watch || hw_range(s->addr, s->len, &a, &l) != 0)
    return -1;
  /* x86 has no read-only watchpoint: reads need read/write */
  uint32_t type = watch & VIGIL_AR_READ ? HW_BREAKPOINT_RW : HW_BREAKPOINT_W;
  if (reuse(s, a, l, type) == 0) {
    vg_watch_count(VG_WC_REUSES);
    return 0;
  }
  /* a free register: prefer one that is off (a stale one may still serve
   * a later begin on its address) */
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < vg_nwregs; i++) {
      struct vg_wreg *r = &vg_wregs[i];
      if (atomic_load_explicit(&r->slot, memory_order_relaxed) ||
          (!pass && atomic_load_explicit(&r->on, memory_order_relaxed)) || !try_lock(r))
        continue;
      int rc = 1;
      if (!atomic_load_explicit(&r->slot, memory_order_relaxed))
        rc = configure(r, i, s, a, l, type);
      unlock(r);
      if (rc == 1)
        continue;
      if (rc == 0)
        vg_watch_handler_check(); /* a system call was made anyway */
      return rc;
    }
  return -1;
}

void vg_atomic_watch_release(struct vg_ar_slot *s) {
  uintptr_t i = s->backend_word;
  s->backend_word = 0;
  if (i == 0 || i > (uintptr_t)vg_nwregs)
    return;
  struct vg_wreg *r = &vg_wregs[i - 1];
  struct vg_ar_slot *mine = s;
  /* lazy: the hardware keeps watching; a trap finds the register free */
  atomic_compare_exchange_strong_explicit(&r->slot, &mine, NULL, memory_order_release,
                                          memory_order_relaxed);
}

void vg_watch_disarm_stale(struct vg_wreg *r, uint32_t gen) {
  if (!try_lock(r))
    return; /* a begin is configuring it: it will be right */
  if (!atomic_load_explicit(&r->slot, memory_order_acquire) &&
      atomic_load_explicit(&r->gen, memory_order_relaxed) == gen &&
      atomic_load_explicit(&r->on, memory_order_relaxed)) {
    atomic_store_explicit(&r->on, 0, memory_order_relaxed);
    ioctl(r->fd, PERF_EVENT_IOC_DISABLE, 0);
    vg_watch_count(VG_WC_STALE);
  }
  unlock(r);
}

/* ---- threads and processes ------------------------------------------------------- */

/* Inherited events follow every new thread by themselves; nothing to do. */
void vg_atomic_watch_thread_start(void) {}
void vg_atomic_watch_thread_exit(void) {}

/* The child of fork: inherit_thread events are not copied into it, and the
 * descriptors it inherited name the parent's events (an ioctl on them
 * would re-arm the parent's threads).  Close them, open fresh ones, and
 * re-arm the slots the core kept (the forking thread's own ARs). */
void vg_atomic_watch_fork_child(void) {
  int n = vg_nwregs, err;
  for (int i = 0; i < n; i++)
    close(vg_wregs[i].fd);
  vg_nwregs = 0;
  n = open_all(n, &err);
  for (int i = 0; i < n; i++)
    atomic_store_explicit(&vg_wregs[i].gen, 0, memory_order_relaxed);
  vg_nwregs = n;
  uint32_t hw = atomic_load_explicit(&vg_ar_slot_hw, memory_order_acquire);
  for (uint32_t i = 0; i < hw; i++) {
    struct vg_ar_slot *s = &vg_ar_slots[i];
    uint32_t st = atomic_load_explicit(&s->state, memory_order_acquire);
    if ((st & VG_SLOT_PHASE) != VG_SLOT_ACTIVE || !s->armed)
      continue;
    s->armed = vg_atomic_watch_arm(s) == 0; /* the core's flag: release only if armed */
  }
}

/* VIGIL_STATS: the backend's counters, at exit. */
static void __attribute__((destructor)) watch_stats(void) {
  if (!vg_nwregs || !getenv("VIGIL_STATS"))
    return;
  static const char *const names[VG_WC_N] = {
      "arms (ioctl)", "reuses (no syscall)", "stale traps", "own traps", "remote traps",
      "writes undone", "re-executed", "not re-executable", "late traps ignored"};
  fprintf(stderr, "vigil: atomic watchpoints (%d registers):", vg_nwregs);
  for (int i = 0; i < VG_WC_N; i++)
    fprintf(stderr, "%s %s %llu", i ? "," : "", names[i],
            (unsigned long long)atomic_load_explicit(&vg_watch_counts[i], memory_order_relaxed));
  fputc('\n', stderr);
}
