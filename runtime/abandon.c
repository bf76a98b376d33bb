/*
 * abandon.c — per-thread bounds left without their exit.
 *
 * A longjmp (siglongjmp, a C++ exception unwinding through C frames) out
 * of a bound function skips the exit hook: the bound's depth stays above
 * zero, every later call of the function would only nest in it, and the
 * abandoned window's events would satisfy every later site.  The outermost
 * entry therefore records where its function keeps its return address
 * (vigil_bound.frame, with the value found there).  A later entry while
 * depth > 0 is a real nesting only if it is a descendant of that frame,
 * and a descendant on the same stack lies below it with the frame intact.
 * Anything else means the frame is gone and the bound was abandoned.
 *
 * Why not intercept longjmp instead: the jmp_buf's stack pointer is
 * mangled by glibc (PTR_MANGLE), every libc spells it differently, and an
 * interceptor would still have to find the thread's open bounds, which
 * live in the program's thread_local storage, not in the runtime.  The
 * frame check costs the inline entry two stores (outermost) or a compare
 * and a load (nested), and is exact for the cases below.
 *
 * Signal handlers may run on an alternate stack (sigaltstack), where
 * addresses say nothing about nesting: comparing frames on different stacks
 * falls back to asking whether the recorded frame still holds its return
 * address.  A frame recorded on the alternate stack is gone as soon as the
 * thread no longer runs on it.  Coroutines that switch stacks
 * (swapcontext) inside a bound are not covered (docs/faults.md).
 */
#define _DEFAULT_SOURCE /* sigaltstack, stack_t */
#include <signal.h>

#include "internal.h"

static int on_stack(const stack_t *ss, const void *p) {
  const char *lo = ss->ss_sp;
  return (const char *)p >= lo && (const char *)p < lo + ss->ss_size;
}

int vg_bound_abandoned(const struct vigil_bound *b, void *const *frame) {
  void *const *old = b->frame;
  if (!old || !frame)
    return 0; /* nothing recorded: the bound is not one function's call */
  /* the common nesting (recursion), decided without a system call */
  if (frame < old && *old == b->frame_return)
    return 0;
  stack_t ss;
  if (sigaltstack(NULL, &ss) != 0 || (ss.ss_flags & SS_DISABLE))
    return 1; /* one stack: at or above the recorded frame, or it is gone */
  int old_alt = on_stack(&ss, old), now_alt = on_stack(&ss, frame);
  if (old_alt && !(ss.ss_flags & SS_ONSTACK))
    return 1; /* recorded by a handler that has returned or jumped out */
  if (old_alt == now_alt)
    return 1; /* same stack: as without an alternate stack */
  return *old != b->frame_return; /* a handler on another stack: interrupted? */
}

/* The abandoned window had no end: what it would have decided at its end
 * is unknown, so each unsettled instance is dropped and counted (a failure
 * already reported stays reported), and the bound is closed. */
void vg_bound_abandon(struct vigil_bound *b) {
  for (struct vg_header *h = b->touched; h; h = h->next) {
    if (h->settled || !h->assertion)
      continue;
    vg_log_drain(h->assertion, b, h); /* counted as if they had been calls */
    if (!h->reported)
      h->dropped = 1;
    h->settled = 1;
    vg_stats_flush_bound(h->assertion, h);
  }
  vg_stats_abandoned();
  /* pending stays: the next exit then calls the runtime once more, which
   * is how a group with eager instances that has not yet registered them
   * still does (vigil/abi.h "Eager instances"); the touched list it walks
   * then is the new bound's */
  if (!(b->flags & VIGIL_BOUND_ENTRIES)) /* there gen counts entries */
    b->gen++; /* even: outside */
  __atomic_store_n(&b->depth, 0, __ATOMIC_RELAXED);
}
