/*
 * or.c — taking an instance with several alternatives back from the
 * inline path's top-level OR shortcuts (vigil/abi.h "Top-level OR inline").
 *
 * The inline path decides the common passing case of an OR assertion alone:
 * an alternative with no transition on the site becomes a dead fast state,
 * and the first alternative to enter "done" settles the instance (settled =
 * 2).  Both are only what the runtime's own shortcuts would have concluded
 * (shortcut.c: a lazy failure at the site, vg_shortcut_end), taken early.
 * Whenever the runtime is called for the instance again in the bound, it
 * first turns them back into its own terms, so the engine after this point
 * runs exactly as if it had taken those steps itself:
 *   - a dead state is the lazy failure vg_shortcut_site would have recorded
 *     (same state, same symbol, ever[] untouched since: dead states ignore
 *     every event, and the inline path does not record their symbols);
 *   - settled = 2 is undone (the runtime may now see a second value tuple,
 *     for which that "done" says nothing); the end of the bound then
 *     decides, through vg_shortcut_end when the done alternative is still
 *     the instance's only tuple.
 * Both are cheap (a loop over at most 8 bytes) and only on the runtime's
 * path of an assertion with several alternatives.
 */
#include "internal.h"
#include "vigil/fastpath.h"

void vg_or_adopt(struct vigil_assertion *a, struct vigil_bound *b, struct vg_header *h) {
  if (a->nalternatives < 2)
    return;
  if (h->settled == VG_SETTLED_OR) {
    h->settled = 0;
    h->passes--;
    if (b)
      b->pending++;
  }
  for (unsigned ai = 0; ai < a->nalternatives; ai++) {
    unsigned f = h->fast[ai], n = a->alternatives[ai].nstates;
    if (f > n + 1u && f < 2u * n + 2u)
      vg_fail_lazily(a, h, ai, f - n - 2u, VIGIL_SYM_SITE, NULL);
  }
}
