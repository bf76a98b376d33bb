/*
 * atomic_report.c — an atomicity violation as a developer needs it, in the
 * way of a race detector's report: the variable, the AR's two local
 * accesses and the remote one between them (where, what kind, which
 * thread), the pattern, whether vigil prevented it, and both stacks.  Text
 * on stderr and one JSON object per line in VIGIL_REPORT, through
 * report.c's vg_report_violation, so the handler, VIGIL_REPORT and
 * VIGIL_ON_FAILURE behave exactly as for assertions (and `vigil report
 * --sarif` reads the lines: they carry "assertion").
 *
 * Each (AR, remote site, pattern) is reported once per run by default
 * (VIGIL_ATOMIC_DEDUP=0 reports every one): a violated AR in a loop would
 * otherwise print the same two stacks thousands of times.  Repeats are
 * counted and the summary says how many.  Slow path: allocates freely.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_internal.h"
#include "internal.h"
#include "symbolize.h"

extern int vg_atomic_dedup;
const char *vg_atomic_mode_name(void);
const char *vg_atomic_detector_name(void);

int vg_atomic_pattern(unsigned first, unsigned remote, unsigned second, char out[4]) {
  char f = first & VIGIL_AR_WRITE ? 'W' : 'R', s = second & VIGIL_AR_WRITE ? 'W' : 'R';
  char r;
  if (remote == (VIGIL_AR_READ | VIGIL_AR_WRITE))
    r = f == 'W' && s == 'W' ? 'R' : 'W'; /* a read-modify-write: the letter that breaks it */
  else
    r = remote & VIGIL_AR_WRITE ? 'W' : 'R';
  out[0] = f, out[1] = r, out[2] = s, out[3] = 0;
  return !strcmp(out, "RWR") || !strcmp(out, "WWR") || !strcmp(out, "WRW") ||
         !strcmp(out, "RWW");
}

/* ---- deduplication: a lock-free set of keys ------------------------------------ */

#define SEEN_SIZE 4096
static _Atomic uint64_t seen[SEEN_SIZE];

static uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdull;
}

/* 1 when the key was new (report it), 0 when seen before.  A full table
 * reports: a duplicate is better than a violation never shown. */
static int first_time(const struct vg_ar_verdict *v) {
  const struct vg_ar_remote *r = &v->slot.remote;
  uint64_t k = mix(mix(mix(mix(1, v->slot.ar), r->via),
                       r->via == VG_VIA_WATCH ? r->pc : r->site),
                   (uint64_t)v->pattern[1] << 8 | (uint64_t)v->pattern[2]);
  k |= 1; /* 0 marks an empty entry */
  for (unsigned i = 0; i < SEEN_SIZE; i++) {
    _Atomic uint64_t *e = &seen[(k + i) & (SEEN_SIZE - 1)];
    uint64_t cur = atomic_load_explicit(e, memory_order_relaxed);
    if (cur == k)
      return 0;
    if (!cur) {
      if (atomic_compare_exchange_strong(e, &cur, k))
        return 1;
      if (cur == k)
        return 0;
    }
  }
  return 1;
}

/* ---- text ------------------------------------------------------------------------ */

static const char *kind_word(unsigned k) {
  return k == (VIGIL_AR_READ | VIGIL_AR_WRITE) ? "read-modify-write"
         : k & VIGIL_AR_WRITE                  ? "write"
                                               : "read";
}

static const char *via_word(unsigned via) {
  return via == VG_VIA_BEGIN   ? "begin"
         : via == VG_VIA_CHECK ? "check"
         : via == VG_VIA_END   ? "end"
                               : "watchpoint";
}

static void loc_text(struct vg_buf *b, const struct vigil_ar_loc *l) {
  vg_bprintf(b, "%s:%u:%u", l->file && *l->file ? l->file : "?", l->line, l->column);
}

static void loc_json(struct vg_buf *b, const struct vigil_ar_loc *l) {
  vg_bprintf(b, "\"file\":");
  vg_bjson(b, l->file ? l->file : "");
  vg_bprintf(b, ",\"line\":%u,\"column\":%u", l->line, l->column);
}

/* Where the remote access is: a site, the first access of its own AR, or
 * the trapping instruction symbolised (NULL loc, text in *where). */
static const struct vigil_ar_loc *remote_loc(const struct vg_ar_remote *r) {
  const struct vigil_atomic_program *p = vg_atomic_prog;
  if (r->via == VG_VIA_CHECK && r->site < p->n_sites)
    return &p->sites[r->site].where;
  if (r->via == VG_VIA_BEGIN && r->site < p->n_ars)
    return &p->ars[r->site].first;
  if (r->via == VG_VIA_END && r->site < p->n_ends)
    return &p->ends[r->site].where;
  return NULL;
}

static void frames_text(struct vg_buf *b, const struct vg_frame *fr, int n) {
  for (int i = 0; i < n; i++) {
    vg_bprintf(b, "\n    ");
    vg_frame_text(b, &fr[i], i);
  }
}

static void frames_json(struct vg_buf *b, const struct vg_frame *fr, int n) {
  vg_bprintf(b, "[");
  for (int i = 0; i < n; i++) {
    vg_bprintf(b, "%s", i ? "," : "");
    vg_frame_json(b, &fr[i]);
  }
  vg_bprintf(b, "]");
}

struct parts {
  struct vg_buf where_first, where_second, where_remote, var, first, second, remote, verdict,
      text, expl, event, heading, json, stack;
};

static void verdict_text(struct vg_buf *b, const struct vg_ar_verdict *v) {
  const char *rk = kind_word(v->slot.remote.kind);
  if (v->prevented)
    vg_bprintf(b, "prevented: the remote %s waited %.3f ms, until this region ended", rk,
               v->waited_ns / 1e6);
  else if (v->timed_out && v->slot.cut_ms)
    vg_bprintf(b, "not prevented: the remote %s went ahead after %.0f ms: this region's owner "
                  "slept in one of the program's locks or condition waits (a likely deadlock)",
               rk, v->waited_ns / 1e6);
  else if (v->timed_out)
    vg_bprintf(b, "not prevented: the remote %s waited the %ld ms timeout and went ahead", rk,
               vg_atomic_config.timeout_ms);
  else if (v->slot.remote.held == VG_HELD_AHEAD)
    vg_bprintf(b, "not prevented: this region and the remote %s's overlapped after a %ld ms "
                  "timeout", rk, vg_atomic_config.timeout_ms);
  else if (v->slot.remote.held)
    vg_bprintf(b, "not prevented");
  else
    vg_bprintf(b, "not prevented: %s", vg_atomic_config.mode == VG_AM_DETECT
                                           ? "detect mode records without holding"
                                           : "the remote access could not be held");
}

static void build_text(struct parts *x, const struct vg_ar_verdict *v, const char *tname,
                       const struct vg_frame *rf, int nrf) {
  const struct vigil_atomic_program *p = vg_atomic_prog;
  const struct vigil_ar *a = &p->ars[v->slot.ar];
  const struct vg_ar_remote *r = &v->slot.remote;
  const char *var = a->var < p->n_vars && p->vars[a->var].name ? p->vars[a->var].name : "?";
  loc_text(&x->where_first, &a->first);
  if (v->self_loop || v->end >= p->n_ends)
    loc_text(&x->where_second, &a->first);
  else
    loc_text(&x->where_second, &p->ends[v->end].where);
  const struct vigil_ar_loc *rl = remote_loc(r);
  if (rl)
    loc_text(&x->where_remote, rl);
  else if (nrf && rf[0].file[0])
    vg_bprintf(&x->where_remote, "%s:%u:%u", rf[0].file, rf[0].line, rf[0].column);
  else
    vg_bprintf(&x->where_remote, "pc 0x%lx", (unsigned long)r->pc);

  vg_bprintf(&x->var, "%s at 0x%lx", var, (unsigned long)v->slot.addr);
  if (a->var < p->n_vars && p->vars[a->var].decl.line) {
    vg_bprintf(&x->var, " (declared ");
    loc_text(&x->var, &p->vars[a->var].decl);
    vg_bprintf(&x->var, ")");
  }
  vg_bprintf(&x->first, "%s at %s, thread %u (%s)", kind_word(a->first_kind),
             x->where_first.p, v->slot.owner_tid, tname);
  vg_bprintf(&x->second, "%s at %s, thread %u (%s)%s", kind_word(v->second_kind),
             x->where_second.p, v->slot.owner_tid, tname,
             v->self_loop ? ", the first access again (a loop)" : "");
  vg_bprintf(&x->remote, "%s at %s, thread %u (%s), seen by %s", kind_word(r->kind),
             x->where_remote.p, r->tid, r->thread_name, via_word(r->via));
  if (r->later) /* held at its begin for what its region does next */
    vg_bprintf(&x->remote, "; its region then %ss it", kind_word(r->later));
  verdict_text(&x->verdict, v);
  vg_bprintf(&x->text, "atomic region of %s in %s: %s at %s, then %s at %s", var,
             a->function_name ? a->function_name : "?", kind_word(a->first_kind),
             x->where_first.p, kind_word(v->second_kind), x->where_second.p);
  vg_bprintf(&x->expl,
             "thread %u's %s of %s came between this thread's %s and %s of it; no serial "
             "order of the three accesses gives that (%s)",
             r->tid, kind_word(r->kind | r->later), var, kind_word(a->first_kind),
             kind_word(v->second_kind), v->pattern);
  vg_bprintf(&x->event, "remote %s at %s", kind_word(r->kind), x->where_remote.p);
  vg_bprintf(&x->heading, "vigil: atomicity violation (%s) on %s at %s", v->pattern, var,
             x->where_first.p);
  if (nrf) {
    vg_bprintf(&x->stack, "backtrace of thread %u:", r->tid);
    frames_text(&x->stack, rf, nrf);
  }
}

static void build_json(struct parts *x, const struct vg_ar_verdict *v,
                       const struct vg_frame *rf, int nrf) {
  const struct vigil_atomic_program *p = vg_atomic_prog;
  const struct vigil_ar *a = &p->ars[v->slot.ar];
  const struct vg_ar_remote *r = &v->slot.remote;
  struct vg_buf *j = &x->json;
  vg_bprintf(j, ",\"kind\":\"atomicity\",\"pattern\":\"%s\",\"prevented\":%s,"
                "\"timed_out\":%s,\"held_ms\":%.3f,\"mode\":\"%s\",\"detector\":\"%s\",\"ar\":%u",
             v->pattern, v->prevented ? "true" : "false", v->timed_out ? "true" : "false",
             v->waited_ns / 1e6, vg_atomic_mode_name(), vg_atomic_detector_name(), v->slot.ar);
  vg_bprintf(j, ",\"variable\":");
  vg_bjson(j, a->var < p->n_vars && p->vars[a->var].name ? p->vars[a->var].name : "?");
  vg_bprintf(j, ",\"address\":\"0x%lx\",\"function\":", (unsigned long)v->slot.addr);
  vg_bjson(j, a->function_name ? a->function_name : "");
  vg_bprintf(j, ",\"first\":{");
  loc_json(j, &a->first);
  vg_bprintf(j, ",\"kind\":\"%s\"},\"second\":{", kind_word(a->first_kind));
  loc_json(j, v->self_loop || v->end >= p->n_ends ? &a->first : &p->ends[v->end].where);
  vg_bprintf(j, ",\"kind\":\"%s\",\"self_loop\":%s},\"remote\":{", kind_word(v->second_kind),
             v->self_loop ? "true" : "false");
  const struct vigil_ar_loc *rl = remote_loc(r);
  if (rl) {
    loc_json(j, rl);
  } else {
    struct vigil_ar_loc l = {nrf ? rf[0].file : "", nrf ? rf[0].line : 0,
                             nrf ? rf[0].column : 0};
    loc_json(j, &l);
  }
  vg_bprintf(j, ",\"kind\":\"%s\",\"via\":\"%s\",\"thread\":%u,\"thread_name\":",
             kind_word(r->kind), via_word(r->via), r->tid);
  vg_bjson(j, r->thread_name);
  if (r->via == VG_VIA_WATCH)
    vg_bprintf(j, ",\"pc\":\"0x%lx\"", (unsigned long)r->pc);
  if (r->via == VG_VIA_CHECK)
    vg_bprintf(j, ",\"site\":%u", r->site);
  if (r->later)
    vg_bprintf(j, ",\"later\":\"%s\"", kind_word(r->later));
  vg_bprintf(j, ",\"repeats\":%u,\"backtrace\":",
             (unsigned)atomic_load_explicit(&v->slot.repeats, memory_order_relaxed));
  frames_json(j, rf, nrf);
  vg_bprintf(j, "}");
}

static void free_parts(struct parts *x) {
  struct vg_buf *all[] = {&x->where_first, &x->where_second, &x->where_remote, &x->var,
                          &x->first, &x->second, &x->remote, &x->verdict, &x->text,
                          &x->expl, &x->event, &x->heading, &x->json, &x->stack};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++)
    free(all[i]->p);
}

void vg_atomic_report(const struct vg_ar_verdict *v) {
  vg_atomic_count(VG_AC_VIOLATIONS, 1);
  if (v->prevented)
    vg_atomic_count(VG_AC_PREVENTED, 1);
  if (vg_atomic_config.mode == VG_AM_TRAIN) {
    vg_atomic_train_note(v->slot.ar, v->pattern); /* a correct run: benign by definition */
    return;
  }
  if (vg_atomic_dedup && !first_time(v)) {
    vg_atomic_count(VG_AC_REPEATED_REPORTS, 1);
    return;
  }
  const struct vg_ar_remote *r = &v->slot.remote;
  int nrf = 0;
  struct vg_frame *rf = NULL;
  if (vg_config.backtrace && r->nframes > 0)
    rf = vg_stack_of(r->frames, r->nframes, r->via != VG_VIA_WATCH, &nrf);
  char tname[32] = "";
  pthread_getname_np(pthread_self(), tname, sizeof tname);
  struct parts x;
  memset(&x, 0, sizeof x);
  build_text(&x, v, tname, rf, nrf);
  build_json(&x, v, rf, nrf);
  const char *lines[] = {"variable:", x.var.p, "first:", x.first.p, "remote:", x.remote.p,
                         "second:", x.second.p, "verdict:", x.verdict.p, NULL, NULL};
  const char *tail[] = {"remote:", x.stack.p, NULL, NULL};
  struct vigil_violation vv = {.assertion = x.where_first.p, .text = x.text.p,
                               .reason = "atomicity-violation", .explanation = x.expl.p,
                               .event = x.event.p, .values = "", .expected = "",
                               .alternative = -1};
  free(rf);
  vg_report_violation(&vv, x.heading.p, lines, nrf ? tail : NULL, x.json.p);
  free_parts(&x);
}
