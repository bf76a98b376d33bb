/*
 * vigil/atomic.h — atomic regions (Kivati, seeds/004): the contract between
 * the link-time pass (compiler/pass/Atomic*.cpp, `vigil-cc --vigil-atomic`)
 * and the runtime (runtime/atomic*.c).  Nothing else crosses the boundary;
 * bump VIGIL_ATOMIC_ABI with any edit of the structures below.
 *
 * Vocabulary (the paper's, §2.2):
 *   shared variable  a global or static (not thread_local), or memory
 *                    reachable from one or handed to pthread_create, or a
 *                    local whose address escapes.  Synchronisation variables
 *                    (mutexes, condition variables, anything accessed
 *                    atomically) are never shared variables here.
 *   atomic region    (AR) one first local access A to a shared variable and
 *                    the accesses B that can follow it next in the same
 *                    function on some path (must-alias: the same address), with
 *                    no lock held across both.  One AR per A; its ends are
 *                    the Bs.  An access can be the B of one AR and the A of
 *                    another (Figure 4).
 *   remote access    another thread's access to the AR's address between A
 *                    and B.  (first, remote, second) is non-serializable for
 *                    RWR, WWR, WRW and RWW (Figure 2; the middle letter is
 *                    the remote access).
 *
 * Instrumentation the pass emits, in every function with ARs:
 *
 *   __vigil_ar_begin(ar, addr, value)  right before A.  `value` is the value
 *        A stores when A is a write (zero-extended; the runtime needs the
 *        value after A to undo a remote write, §3.3), 0 for a read.
 *   v = __vigil_ar_begin_read(ar, addr, size)  instead of the begin and A
 *        when A is a read of size = 1, 2, 4 or 8 naturally aligned bytes: the runtime
 *        makes A itself, after the AR is published, and returns the value
 *        (zero-extended).  So the AR's saved value is exactly what A read,
 *        which is what lets a checked write that raced with the begin know
 *        whether A saw it (below).
 *   __vigil_ar_end(end, addr)          right after each B (end indexes
 *        `ends`: which AR, B's kind and location).
 *   v = __vigil_ar_end_read(end, addr, size)  instead of B and its end when
 *        B is a read of size = 1, 2, 4 or 8 naturally aligned bytes that is
 *        not also the A of an AR: the runtime makes B itself and, in the
 *        holding modes, waits a little when it does not see the value the
 *        AR left there (a remote write between its exchange and its undo,
 *        below), returning the value zero-extended.  When A is its own B (a
 *        loop), no end is emitted: a begin of an AR the thread already holds
 *        ends the old instance with B = A and starts a new one.
 *   __vigil_ar_clear(first, count)     before every return (and resume) of
 *        the function: ends without a verdict every AR in [first,
 *        first+count) this thread still holds (the paper's clear_ar: a
 *        begin whose end is on a path not taken).  A function's ARs have
 *        consecutive ids.
 *
 * and, when the program is built with access checks (the software
 * detector, flag VIGIL_ATOMIC_CHECKS), around every other access that may
 * touch the variable of some AR (an access that is always inside an AR of
 * its own thread is not checked): around a write,
 *
 *     if (__vigil_atomic_filter[VIGIL_ATOMIC_BUCKET(addr)])
 *       __vigil_access(addr, site);                 (hold it before)
 *     old = atomic_exchange(addr, v);               (seq_cst)
 *     if (__vigil_atomic_filter[VIGIL_ATOMIC_BUCKET(addr)])
 *       __vigil_access_written(addr, site, old, v); (undo and redo)
 *
 * The first check holds the write while an AR it would break is open, but
 * an AR can begin between that check and the store.  The exchange is a
 * full fence, and so is a begin's publication, so either the second check
 * sees the new AR or the AR's first access sees the new value; in the
 * first case the runtime compares the AR's saved value with old and v and,
 * when the first access came before the write, undoes it (compare-and-swap
 * back to old), waits for the AR's end and writes again (Kivati §3.3's
 * undo, in software).  Writes of other sizes or alignment keep only the
 * first check (a window of two instructions, docs/atomic.md).  A read is
 * read again when an AR was open at it, or may have been: its bucket is
 * loaded before and after it (acquire, then after an acquire fence),
 *
 *     w = __vigil_atomic_filter[VIGIL_ATOMIC_BUCKET(addr)];
 *     v = *addr;
 *     if ((w & VIGIL_ATOMIC_FILTER_COUNT) ||
 *         w != __vigil_atomic_filter[VIGIL_ATOMIC_BUCKET(addr)])
 *       v = __vigil_access_read(addr, site, size);
 *
 * A bucket's word counts the ARs open on it (the low byte) and the ends
 * there (the bits above), so the second load also sees an AR that began
 * *and ended* between the first load and the read, which a count alone
 * would not (docs/atomic.md: mysql-791).  The runtime waits for the ARs
 * the read would break, reads, and looks again (an AR that began between
 * its wait and its read), returning the value zero-extended.  Reads of
 * other sizes or alignment call __vigil_access(addr, site) and read again
 * in the program (the window between that wait and that read stays,
 * docs/atomic.md).  A write's checks load the count byte alone (the
 * word's lowest-addressed byte on a little-endian target, the highest on
 * a big-endian one).
 *
 * The runtime keeps a bucket's count non-zero while some thread holds an
 * AR on an address of that bucket, so a program outside every AR pays one
 * load and a branch per checked write, two loads and a compare per read.
 *
 * A build without access checks relies on hardware watchpoints
 * (perf_event_open(PERF_TYPE_BREAKPOINT), synchronous SIGTRAP) for remote
 * accesses that do not begin an AR of their own; begin/end/clear are the
 * same.  VIGIL_ATOMIC_DETECTOR=checks|watchpoints|begin chooses at run time
 * among the detectors the build allows (docs/atomic.md).
 */
#ifndef VIGIL_ATOMIC_H
#define VIGIL_ATOMIC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define VIGIL_ATOMIC_ABI 5

/* Access kinds, also used as masks. */
#define VIGIL_AR_READ 1u
#define VIGIL_AR_WRITE 2u

/* Program flags. */
#define VIGIL_ATOMIC_CHECKS 1u /* access checks compiled in */

/* The inline filter: one word per 8-byte granule class.  A begin adds 1
 * to each bucket its AR covers, an end adds VIGIL_ATOMIC_FILTER_END: the
 * count (at most VG_AR_SLOTS, 64) goes down by one and the end count above
 * it up by one (wrapping after 2^24 ends, harmlessly: a reader preempted
 * across exactly that many would miss one change). */
#define VIGIL_ATOMIC_FILTER_COUNT 0xffu
#define VIGIL_ATOMIC_FILTER_END 0xffu
#define VIGIL_ATOMIC_FILTER_BITS 12
#define VIGIL_ATOMIC_FILTER_SIZE (1u << VIGIL_ATOMIC_FILTER_BITS)
#define VIGIL_ATOMIC_BUCKET(addr) \
  ((((uintptr_t)(addr)) >> 3) & (VIGIL_ATOMIC_FILTER_SIZE - 1))

struct vigil_ar_loc {
  const char *file; /* as in the debug info ("" without -g) */
  uint32_t line, column;
};

/* One shared variable that has ARs. */
struct vigil_atomic_var {
  const char *name; /* "shared_ptr", "stats.hits", "*(arg of worker)" */
  struct vigil_ar_loc decl; /* where it is declared; line 0 if unknown */
};

/* One atomic region: its first access and what its ends can be. */
struct vigil_ar {
  uint32_t var;      /* index into vars */
  uint32_t function; /* first AR id of its function (for clear) */
  const char *function_name;
  struct vigil_ar_loc first;
  uint8_t first_kind;   /* VIGIL_AR_READ or VIGIL_AR_WRITE */
  uint8_t second_kinds; /* union of its ends' kinds */
  uint8_t watch;        /* remote kinds that can break it (Figure 6) */
  uint8_t size;         /* bytes the first access touches (1..8, 0: more) */
  /* The kinds of every access the owner can still make to the variable
   * while it holds this AR or an AR chained to it (one whose first access
   * is an end of this one: `x += n` after a read of x is R->R then R->W).
   * A begin is exclusive against ARs whose later accesses would break it,
   * and whose own later accesses would break them (runtime/atomic.c). */
  uint8_t later_kinds;
  uint8_t reserved[3];
};

/* One end of an AR: a second access B. */
struct vigil_ar_end {
  uint32_t ar;
  uint8_t kind; /* VIGIL_AR_READ or VIGIL_AR_WRITE */
  uint8_t size;
  uint16_t reserved;
  struct vigil_ar_loc where;
};

/* One checked access (software detector). */
struct vigil_access_site {
  uint32_t var; /* index into vars, or UINT32_MAX: may touch several */
  uint8_t kind; /* VIGIL_AR_READ, VIGIL_AR_WRITE or both (read-modify-write) */
  uint8_t size;
  uint16_t reserved;
  struct vigil_ar_loc where;
};

/* The whole program's tables, registered once by a constructor the pass
 * emits (__vigil_atomic_register runs before main and before any thread). */
struct vigil_atomic_program {
  uint32_t abi; /* VIGIL_ATOMIC_ABI */
  uint32_t flags;
  uint32_t n_vars, n_ars, n_ends, n_sites;
  const struct vigil_atomic_var *vars;
  const struct vigil_ar *ars;
  const struct vigil_ar_end *ends;
  const struct vigil_access_site *sites;
};

_Static_assert(sizeof(struct vigil_ar_loc) == 16, "vigil_ar_loc layout");
_Static_assert(sizeof(struct vigil_atomic_var) == 24, "vigil_atomic_var layout");
_Static_assert(sizeof(struct vigil_ar) == 40 &&
                   offsetof(struct vigil_ar, first) == 16 &&
                   offsetof(struct vigil_ar, first_kind) == 32,
               "vigil_ar layout");
_Static_assert(sizeof(struct vigil_ar_end) == 24, "vigil_ar_end layout");
_Static_assert(sizeof(struct vigil_access_site) == 24, "vigil_access_site layout");
_Static_assert(sizeof(struct vigil_atomic_program) == 56 &&
                   offsetof(struct vigil_atomic_program, vars) == 24,
               "vigil_atomic_program layout");

extern volatile uint32_t __vigil_atomic_filter[VIGIL_ATOMIC_FILTER_SIZE];

void __vigil_atomic_register(const struct vigil_atomic_program *p);
void __vigil_ar_begin(uint32_t ar, void *addr, uint64_t value);
uint64_t __vigil_ar_begin_read(uint32_t ar, void *addr, uint32_t size);
void __vigil_ar_end(uint32_t end, void *addr);
uint64_t __vigil_ar_end_read(uint32_t end, void *addr, uint32_t size);
void __vigil_ar_clear(uint32_t first, uint32_t count);
void __vigil_access(void *addr, uint32_t site);
void __vigil_access_written(void *addr, uint32_t site, uint64_t old, uint64_t value);
uint64_t __vigil_access_read(void *addr, uint32_t site, uint32_t size);

#ifdef __cplusplus
}
#endif

#endif /* VIGIL_ATOMIC_H */
