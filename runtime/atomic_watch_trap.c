/*
 * atomic_watch_trap.c — the watchpoint backend's SIGTRAP handler: a trap
 * on an armed register is a remote access to an AR's variable (§3.2); in
 * prevent mode it is moved after the AR's end (§3.3): x86 traps after the
 * access, so a write is undone (the slot's value after the first local
 * access is put back) and the PC is rewound to the instruction's start,
 * which runs again once the core's wait returns.  A read into a register
 * is simply rewound: the register gets the right value when it runs again.
 * Anything else (push/pop/call, xchg/xadd/cmpxchg, string operations, an
 * instruction that reads the register it writes) is recorded as not
 * preventable (can_hold = 0).
 *
 * Installation: sigaction(SA_SIGINFO | SA_RESTART | SA_ONSTACK), SIGTRAP
 * blocked while it runs, no SA_NODEFER.  The handler touches the watched
 * variable itself (the undo, the value check); with SIGTRAP blocked those
 * hits are queued by the kernel and delivered right after the handler
 * returns with TRAP_PERF_FLAG_ASYNC set, and ignored as such.  With
 * SA_NODEFER they would re-enter the handler at once, recursively, inside
 * the undo.  SA_RESTART: a trap is synchronous to a user instruction, not
 * a system call, but a chained program handler may expect it.  SA_ONSTACK:
 * honour an alternate stack the thread set up (stack overflow handling).
 *
 * Chaining: the disposition in place at init (the program's handler,
 * SIG_IGN or SIG_DFL) gets every SIGTRAP that is not ours: int3,
 * raise(SIGTRAP), single-step, a perf event of the program's own.  A
 * handler the program installs later replaces ours; vigil notices at the
 * next arm that makes a system call (one sigaction query there), takes
 * SIGTRAP back and chains to the program's.  Until then remote accesses
 * go to the program's handler (documented).  gdb is unaffected: under
 * ptrace the debugger sees its breakpoint traps before any handler.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include "atomic_insn.h"
#include "atomic_watch.h"

/* glibc 2.36's siginfo_t lacks the perf fields (Linux 5.13): their place
 * in the kernel's layout (asm-generic/siginfo.h, _sigfault._perf). */
#ifndef TRAP_PERF
#define TRAP_PERF 6
#endif
#define TRAP_PERF_FLAG_ASYNC 1u
struct perf_fields {
  int signo, errno_, code, pad;
  void *addr;
  unsigned long data;
  uint32_t type, flags;
};
_Static_assert(offsetof(struct perf_fields, data) == 24, "si_perf_data offset");
#define PERF_TYPE_BREAKPOINT_ 5

static struct sigaction chained; /* the program's disposition before ours */

static void handler(int sig, siginfo_t *info, void *ucv);

static void chain(int sig, siginfo_t *info, void *uc) {
  if (chained.sa_flags & SA_SIGINFO) {
    if (chained.sa_sigaction)
      chained.sa_sigaction(sig, info, uc);
    return;
  }
  if (chained.sa_handler == SIG_IGN)
    return;
  if (chained.sa_handler == SIG_DFL) {
    /* the default action (core dump): delivered once this handler returns */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(SIGTRAP, &dfl, NULL);
    raise(SIGTRAP);
    return;
  }
  chained.sa_handler(sig);
}

int vg_watch_install_handler(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  return sigaction(SIGTRAP, &sa, &chained);
}

void vg_watch_handler_check(void) {
  struct sigaction cur;
  if (sigaction(SIGTRAP, NULL, &cur) != 0)
    return;
  if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == handler)
    return;
  vg_watch_install_handler(); /* the program's becomes the chained one */
}

/* ---- the remote access ------------------------------------------------------------ */

static void regs_of(const ucontext_t *uc, uint64_t regs[16]) {
  static const int map[16] = {REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP,
                              REG_RSI, REG_RDI, REG_R8,  REG_R9,  REG_R10, REG_R11,
                              REG_R12, REG_R13, REG_R14, REG_R15};
  for (int i = 0; i < 16; i++)
    regs[i] = (uint64_t)uc->uc_mcontext.gregs[map[i]];
}

/* Whether in's write can be undone by restoring the slot's bytes: the
 * slot is one aligned 1/2/4/8-byte word, and a read-modify-write touched
 * nothing outside it (a plain store rewrites its other bytes identically
 * when it runs again). */
static int undoable(const struct vg_ar_slot *s, const struct vg_insn *in, const ucontext_t *uc,
                    uintptr_t next) {
  uint32_t l = s->len;
  if ((l != 1 && l != 2 && l != 4 && l != 8) || (s->addr & (l - 1)))
    return 0;
  if (in->cls != VG_INSN_RMW)
    return 1;
  uint64_t regs[16];
  uintptr_t ea;
  regs_of(uc, regs);
  return vg_insn_ea(in, regs, next, &ea) == 0 && in->opsize && ea >= s->addr &&
         ea + in->opsize <= s->addr + l;
}

/* A trap on register r by another thread than the owner of slot s. */
static void remote(struct vg_ar_slot *s, ucontext_t *uc) {
  uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP], start = 0;
  struct vg_insn in;
  int found = vg_insn_before(pc, &start, &in) == 0;
  unsigned kind = found && in.kind ? in.kind : s->watch;
  if (!(kind & s->watch))
    return; /* a kind this AR cannot be broken by (read/write hardware, write-only AR) */
  int can = found && in.reexec && (!(kind & VIGIL_AR_WRITE) || undoable(s, &in, uc, pc));
  int hold = can && vg_atomic_would_hold(s);
  if (hold && (kind & VIGIL_AR_WRITE)) {
    uint64_t now = vg_load_n(s->addr, s->len);
    if (now != s->saved && !vg_cas_n(s->addr, s->len, now, s->saved))
      hold = can = 0; /* changed under us: the owner wrote; leave it */
    else if (now != s->saved)
      vg_watch_count(VG_WC_UNDONE);
  }
  if (!can)
    vg_watch_count(VG_WC_NOT_REEXEC);
  vg_watch_count(VG_WC_REMOTE);
  vg_atomic_remote(s, kind, found ? start : pc, can);
  /* held, timed out or let go: the undone access runs again now; if the
   * AR still runs (timeout) it traps again and, the slot expired, stands */
  if (hold) {
    uc->uc_mcontext.gregs[REG_RIP] = (greg_t)start;
    vg_watch_count(VG_WC_REWOUND);
  }
}

static void handler(int sig, siginfo_t *info, void *ucv) {
  const struct perf_fields *pf = (const struct perf_fields *)(void *)info;
  if (info->si_code != TRAP_PERF || pf->type != PERF_TYPE_BREAKPOINT_ ||
      (pf->data & VG_WATCH_TAG_MASK) != VG_WATCH_TAG) {
    chain(sig, info, ucv);
    return;
  }
  if (pf->flags & TRAP_PERF_FLAG_ASYNC) {
    vg_watch_count(VG_WC_ASYNC); /* our own touch in the handler, or SIGTRAP was blocked */
    return;
  }
  unsigned reg = (unsigned)(pf->data & 0xff);
  uint32_t gen = (uint32_t)((pf->data >> 8) & 0xffffff);
  if (reg >= (unsigned)vg_nwregs)
    return;
  struct vg_wreg *r = &vg_wregs[reg];
  if (atomic_load_explicit(&r->gen, memory_order_acquire) != gen)
    return; /* a configuration that is gone */
  /* the core's own look at the variable (a begin reading the value it
   * saves; a begin is seen as a remote there): neither a remote nor a
   * reason to disarm a register the begin may be about to reuse */
  if (vg_ar_self.busy)
    return;
  struct vg_ar_slot *s = atomic_load_explicit(&r->slot, memory_order_acquire);
  if (!s) {
    vg_watch_disarm_stale(r, gen);
    return;
  }
  if (s->owner_tid == vg_atomic_tid()) {
    vg_watch_count(VG_WC_OWN);
    return;
  }
  uint32_t st = atomic_load_explicit(&s->state, memory_order_acquire);
  if ((st & VG_SLOT_PHASE) != VG_SLOT_ACTIVE || !vg_overlaps(s->addr, s->len, r->addr, r->len))
    return; /* ending, or the slot already serves another AR */
  remote(s, (ucontext_t *)ucv);
}
