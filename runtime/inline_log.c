/*
 * inline_log.c — the runtime's side of the inline log (vigil/abi.h "Inline
 * log", compiler/pass/HooksStore.cpp).
 *
 * An assertion whose alternatives all record decides nothing before its
 * site, so its instrumented code appends such events to a log in the
 * instance instead of calling __vigil_event.  Before the runtime looks at
 * the instance for any other reason (an event, the site, the end or the
 * abandonment of the bound) it replays the log here through
 * vg_engine_event, in order: the engine then sees exactly the calls the
 * log stands for, in the order they were made, and nothing it could have
 * decided in between is lost (a recording alternative before its site only
 * records).  So the temporal stores, the replay at the site, the reports
 * and the statistics are unchanged; only the per-event calls are gone.
 */
#include "internal.h"

static inline uint64_t *log_of(const struct vigil_assertion *a, struct vg_header *h) {
  return (uint64_t *)((char *)h + VIGIL_LOG_OFFSET(a->nalternatives, a->ncaptures));
}

/* The empty log of the next epoch: the hook's compare-and-swap on an older
 * head fails, whatever it was appending goes to the runtime. */
static inline uint64_t next_epoch(uint64_t head) {
  return ((head >> 32) + 1) << 32;
}

void vg_log_reset(struct vigil_assertion *a, struct vg_header *h) {
  if (!a || !a->log_slots)
    return;
  uint64_t *head = log_of(a, h);
  uint64_t w = __atomic_load_n(head, __ATOMIC_RELAXED);
  if ((uint32_t)w)
    __atomic_store_n(head, next_epoch(w), __ATOMIC_RELAXED);
}

/* The site the pass took inline, where it came among the logged events:
 * the runtime's own site with the instance's captured values (the same
 * replay, so the same outcome), then the fast state the inline path has
 * reached since, which the next look at the alternative takes over
 * (instance.c reclaim).  Returns 0 (no site left to place). */
static unsigned log_site(struct vigil_assertion *a, struct vigil_bound *b,
                         struct vg_header *h, uint8_t after) {
  vg_engine_site(a, b, h, NULL);
  if (!h->dropped && !h->reported && vg_alts(h)->nchecks)
    h->fast[0] = after;
  return 0;
}

/* Replaying calls vg_engine_event, which drains first: the flag keeps a
 * nested drain (or one from a violation handler's event) from taking
 * entries out of order; they wait for the next drain. */
static _Thread_local int draining;

void vg_log_drain_all(struct vigil_assertion *a, struct vigil_bound *b,
                      struct vg_header *h) {
  if (!a || !a->log_slots || draining || h->gen != b->gen)
    return;
  uint64_t *head = log_of(a, h);
  uint64_t w = __atomic_load_n(head, __ATOMIC_RELAXED);
  if (!(uint32_t)w)
    return;
  /* The entries are taken where they are, then the log is emptied with
   * one compare-and-swap.  While head says n, an appender (a signal
   * handler: this thread is inside the runtime) writes entry n or later,
   * never one being read; if one did, the compare-and-swap fails and its
   * entries are taken too, after the others: the order is kept.
   * Most entries are appends to the store (replay.c takes runs of them
   * without vg_engine_event's per-event work); the rest, the first of a
   * bound included (it initialises the alternative), go through it. */
  unsigned stride = a->log_stride, i = 0;
  if (stride > 1 + VIGIL_MAX_VALUES)
    return; /* not a log this runtime understands: leave it */
  draining = 1;
  /* The pass's inline site came after the first site_at - 1 entries
   * (HooksLogSite.cpp): it goes back in its place. */
  unsigned site_at = a->nalternatives == 1 ? h->fast[1] : 0;
  uint8_t after = h->fast[0];
  if (site_at) {
    h->fast[1] = 0;
    h->fast[0] = 0; /* until the site, the runtime's recording state */
  }
  for (;;) {
    unsigned n = (uint32_t)w;
    if (n > a->log_slots || n > VIGIL_LOG_SLOTS)
      break;
    const uint64_t *entries = head + 1;
    while (i < n && h->gen == b->gen) {
      if (site_at && i + 1 == site_at)
        site_at = log_site(a, b, h, after);
      unsigned until = site_at ? site_at - 1 : n;
      i += vg_record_quick_run(a, h, entries + (size_t)i * stride, until - i, stride);
      if (i == until)
        continue;
      const uint64_t *e = entries + (size_t)i * stride;
      vg_engine_event(a, b, h, (unsigned)e[0], e + 1);
      i++;
    }
    if (site_at && i + 1 == site_at && h->gen == b->gen)
      site_at = log_site(a, b, h, after);
    uint64_t epoch = w >> 32;
    if (__atomic_compare_exchange_n(head, &w, next_epoch(w), 0, __ATOMIC_RELAXED,
                                    __ATOMIC_RELAXED) ||
        w >> 32 != epoch)
      break; /* emptied (or emptied by someone else: nothing left to take) */
  }
  draining = 0;
}
