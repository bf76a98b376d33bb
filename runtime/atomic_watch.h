/*
 * atomic_watch.h — shared by the watchpoint backend's files only:
 * atomic_watch.c (the debug registers: perf events, arm, lazy release,
 * fork) and atomic_watch_trap.c (the SIGTRAP handler).  The contract with
 * the core is atomic_internal.h.
 */
#ifndef VIGIL_ATOMIC_WATCH_H
#define VIGIL_ATOMIC_WATCH_H

#include <stdatomic.h>
#include <stdint.h>

#include "atomic_internal.h"

/* x86 has four debug address registers; one perf event per register. */
#define VG_WATCH_REGS 4

/* sig_data of our events: a tag in the top 16 bits, the generation of the
 * register's configuration, the register index.  A trap carrying an older
 * generation than the register's is from a configuration that is gone. */
#define VG_WATCH_TAG 0x7667000000000000ull /* "vg" */
#define VG_WATCH_TAG_MASK 0xffff000000000000ull
#define VG_WATCH_SIGDATA(gen, reg) (VG_WATCH_TAG | ((uint64_t)(gen) << 8) | (uint64_t)(reg))

struct vg_wreg {
  int fd;                    /* the inherited perf event, -1 none */
  _Atomic uint32_t busy;     /* its hardware is being changed (try-lock) */
  _Atomic uint32_t gen;      /* generation of the configuration below (24 bits used) */
  _Atomic uint32_t on;       /* the hardware watches addr/len/type */
  struct vg_ar_slot *_Atomic slot; /* the AR using it; NULL: free, maybe still on */
  uintptr_t addr;            /* what the hardware watches when `on` */
  uint32_t len, type;        /* bytes (1, 2, 4, 8); HW_BREAKPOINT_W or _RW */
};

extern struct vg_wreg vg_wregs[VG_WATCH_REGS];
extern int vg_nwregs;

/* Counters of the backend (VIGIL_STATS; atomic_watch.c prints them). */
enum vg_watch_counter {
  VG_WC_ARMS,       /* a register configured (one ioctl) */
  VG_WC_REUSES,     /* a begin found its watchpoint still armed: no system call */
  VG_WC_STALE,      /* a trap on a released register: disarmed then */
  VG_WC_OWN,        /* the owner's own access trapped (filtered) */
  VG_WC_REMOTE,     /* a remote access reported to the core */
  VG_WC_UNDONE,     /* ... whose write was undone */
  VG_WC_REWOUND,    /* ... re-executed after the wait */
  VG_WC_NOT_REEXEC, /* ... that could not be held (instruction not re-executable) */
  VG_WC_ASYNC,      /* a trap delivered late (SIGTRAP was blocked): ignored */
  VG_WC_N
};
extern _Atomic uint64_t vg_watch_counts[VG_WC_N];
static inline void vg_watch_count(enum vg_watch_counter c) {
  atomic_fetch_add_explicit(&vg_watch_counts[c], 1, memory_order_relaxed);
}

/* atomic_watch.c: turns a released register off if it is still released
 * and still configuration gen (from a stale trap; try-lock, no wait). */
void vg_watch_disarm_stale(struct vg_wreg *r, uint32_t gen);

/* atomic_watch_trap.c: installs the SIGTRAP handler, saving the one in
 * place to chain to; 0 or -1.  vg_watch_handler_check re-installs it if
 * the program replaced it since (the replaced one becomes the chained). */
int vg_watch_install_handler(void);
void vg_watch_handler_check(void);

#endif /* VIGIL_ATOMIC_WATCH_H */
