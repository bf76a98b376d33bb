/*
 * eager.c — eager instances at the edges of their bound (vigil/abi.h,
 * "Eager instances").
 *
 * In a small per-thread bound group the pass initialises each inline
 * instance (one alternative, or several of a top-level OR, every one
 * taking its steps inline) at the bound's outermost entry, so that its
 * hooks are a table step and nothing else (no generation check, no touch,
 * no counting).  What the late-initialised instances get from the touched
 * list and the pending count, eager ones get here from the exit hook,
 * which passes them all: the runtime registers them (their thread's first
 * call: the group's bound starts with pending = 1 for that), and ends those
 * whose fast state vigil_fast_end sends to the runtime.  The inline exit
 * has already counted the passes of the others, so this never counts them.
 */
#include "internal.h"
#include "vigil/fastpath.h"

/* vigil_fast_end for the instance: its only alternative's, or with
 * several (top-level OR) the joint decision of vigil_fast_end_joint. */
static unsigned end_of(struct vigil_assertion *a, const struct vg_header *h) {
  const struct vg_assertion_rt *rt = vg_rt(a);
  unsigned classes = 0;
  for (unsigned ai = 0; ai < a->nalternatives; ai++) {
    struct vigil_fast_model m = {&a->alternatives[ai], rt ? rt->static_symbols : 0,
                                 a->nsymbols, a->mode};
    if (a->nalternatives == 1)
      return vigil_fast_end(&m, h->fast[0]);
    classes |= vigil_fast_end_class(&m, a->nalternatives, h->fast[ai]);
  }
  return vigil_fast_end_joint(classes);
}

void vg_engine_settle_eager(struct vigil_bound *b, uint32_t n,
                            struct vigil_assertion *const *as, void *const *insts) {
  for (uint32_t i = 0; i < n; i++) {
    struct vg_header *h = insts[i];
    int runtime = end_of(as[i], h) == VIGIL_END_RUNTIME;
    if (!h->assertion || runtime)
      vg_instance_touch(as[i], b, h); /* registers; this bound's flags */
    if (runtime)
      vg_instance_end(as[i], b, h);
  }
  if (b->pending)
    vg_engine_settle(b);
  b->pending = 0;
}

/* Whether the instance began its check in the abandoned bound: a state
 * other than the initial one or outside, and (one alternative) not done.
 * (A late-initialised instance counts as begun when it was touched; an
 * eager one is touched by every entry, so the first step that moved it is
 * the closest measure.) */
static int begun(struct vigil_assertion *a, const struct vg_header *h) {
  int moved = 0;
  for (unsigned ai = 0; ai < a->nalternatives; ai++)
    moved |= h->fast[ai] != 1 && h->fast[ai] != VIGIL_FAST_OUTSIDE;
  /* With several alternatives the engine settles nothing before the end
   * of the bound (one done alternative is no verdict yet for it), so an
   * abandoned one is dropped even when it would have passed. */
  return moved && (a->nalternatives > 1 || end_of(a, h) != VIGIL_END_PASS);
}

void vg_engine_enter_eager(struct vigil_bound *b, void *const *frame, uint32_t n,
                           struct vigil_assertion *const *as, void *const *insts) {
  if (b->depth == 0 || !vg_bound_abandoned(b, frame)) {
    vg_engine_bound_enter(b, frame); /* a nesting (or a first entry) */
    return;
  }
  for (uint32_t i = 0; i < n; i++) {
    struct vg_header *h = insts[i];
    if (!begun(as[i], h))
      continue;
    vg_instance_touch(as[i], b, h); /* registers it if need be */
    if (!h->reported)
      vg_stats_dropped(as[i]);
  }
  vg_bound_abandon(b);
  vg_engine_bound_enter(b, frame);
  for (uint32_t i = 0; i < n; i++) {
    struct vg_header *h = insts[i];
    for (unsigned ai = 0; ai < as[i]->nalternatives; ai++) {
      h->fast[ai] = 1;
      h->ever[ai] = 0;
    }
  }
}
