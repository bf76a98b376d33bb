/*
 * report.c — turning a failure into what a developer needs to fix it: the
 * assertion (file:line and text), the reason, the event with its values,
 * what was allowed instead, the thread and a symbolised backtrace; on
 * stderr (or a custom handler), and as one JSON object per line in
 * VIGIL_REPORT.  Then VIGIL_ON_FAILURE decides: abort, log or count.
 *
 * This is the slow path: it may allocate and format freely.
 */
#define _GNU_SOURCE
#include <execinfo.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "stream.h"
#include "symbolize.h"

static vigil_handler_fn handler;
static void *handler_ctx;

vigil_handler_fn vigil_set_handler(vigil_handler_fn h, void *ctx) {
  vigil_handler_fn old = handler;
  handler_ctx = ctx;
  handler = h;
  return old;
}

static const char *const reason_codes[] = {
    [VG_R_MISSING_BEFORE_SITE] = "missing-before-site",
    [VG_R_WRONG_ORDER] = "wrong-order",
    [VG_R_EARLY_EVENT] = "event-before-site",
    [VG_R_MISSING_AFTER_SITE] = "missing-after-site",
    [VG_R_UNEXPECTED_EVENT] = "unexpected-event",
    [VG_R_SITE_NOT_REACHED] = "site-not-reached",
    [VG_R_NO_ALTERNATIVE] = "no-alternative-held",
};

/* A growable string for formatting. */
struct buf {
  char *p;
  size_t len, cap;
};

static void bprintf(struct buf *b, const char *fmt, ...) {
  va_list ap;
  for (;;) {
    va_start(ap, fmt);
    int n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
    va_end(ap);
    if (n < 0)
      return;
    if (b->p && b->len + (size_t)n < b->cap) {
      b->len += (size_t)n;
      return;
    }
    size_t ncap = (b->cap ? b->cap * 2 : 256) + (size_t)n;
    char *np = realloc(b->p, ncap);
    if (!np)
      return;
    b->p = np;
    b->cap = ncap;
  }
}

static const char *bstr(struct buf *b) { return b->p ? b->p : ""; }

/* Values are raw 64-bit words; show small ones and negative 32-bit ones in
 * decimal, the rest (pointers) in hex. */
static void format_value(struct buf *b, uint64_t v) {
  if (v < 1000000)
    bprintf(b, "%llu", (unsigned long long)v);
  else if (v >= 0xffff0000ull && v <= 0xffffffffull)
    bprintf(b, "%d", (int)(uint32_t)v);
  else if (v >= 0xffffffffffff0000ull)
    bprintf(b, "%lld", (long long)v);
  else
    bprintf(b, "0x%llx", (unsigned long long)v);
}

/* The values a report names: the observed words of the event (when the
 * failure has them), else the captured values the event had to carry;
 * then the bindings of free variables. */
static void format_values(struct buf *b, const struct vigil_assertion *a,
                          const struct vigil_event_desc *ev,
                          const struct vg_failure *f) {
  const char *sep = "";
  unsigned shown = 0; /* captures already named */
  for (unsigned i = 0; ev && i < ev->nvalues; i++) {
    const struct vigil_value_desc *v = &ev->values[i];
    uint64_t val;
    if (v->kind == VIGIL_VAL_CAPTURE && !f->has_values)
      shown |= 1u << v->index;
    if (f->has_values)
      val = f->values[i];
    else if (v->kind == VIGIL_VAL_CAPTURE && f->has_tuple)
      val = f->tuple[v->index];
    else if (v->kind == VIGIL_VAL_KEY && f->has_key)
      val = f->key;
    else if (v->kind == VIGIL_VAL_CONST)
      val = v->constant;
    else
      continue; /* ANY, not observed: nothing to say */
    if (!f->has_values && (v->kind == VIGIL_VAL_CAPTURE || v->kind == VIGIL_VAL_KEY))
      bprintf(b, "%s%s", sep, v->text);
    else if (v->role == VIGIL_ROLE_RETURN)
      bprintf(b, "%sreturn value", sep);
    else if (v->role == VIGIL_ROLE_BASE)
      bprintf(b, "%sobject (%s)", sep, v->text);
    else if (v->role == VIGIL_ROLE_VALUE)
      bprintf(b, "%svalue (%s)", sep, v->text);
    else
      bprintf(b, "%sargument %u (%s)", sep, v->arg_index + 1, v->text);
    bprintf(b, " = ");
    format_value(b, val);
    sep = ", ";
  }
  /* the check's captured values: which tuple failed */
  for (unsigned c = 0; f->has_tuple && c < a->ncaptures; c++)
    if (!(shown & (1u << c)) && a->capture_texts) {
      bprintf(b, "%s%s = ", sep, a->capture_texts[c]);
      format_value(b, f->tuple[c]);
      sep = ", ";
    }
  for (unsigned x = 0; x < a->nfree && x < VIGIL_MAX_FREE; x++)
    if (f->bound & (1u << x)) {
      bprintf(b, "%s%s = ", sep, a->free_texts ? a->free_texts[x] : "?");
      format_value(b, f->binding[x]);
      sep = ", ";
    }
}

static const char *symbol_text(const struct vigil_assertion *a, unsigned s) {
  const struct vigil_event_desc *ev = &a->symbols[s];
  return ev->kind == VIGIL_EV_SITE ? "TESLA_ASSERTION_SITE" : ev->text;
}

static void format_expected(struct buf *b, const struct vigil_assertion *a,
                            uint64_t mask) {
  const char *sep = "";
  for (unsigned e = VIGIL_SYM_SITE; e < a->nsymbols; e++)
    if (mask & (1ull << e)) {
      bprintf(b, "%s%s", sep, symbol_text(a, e));
      sep = " | ";
    }
}

static void explain(struct buf *b, const struct vg_failure *f, const char *event) {
  switch (f->reason) {
  case VG_R_MISSING_BEFORE_SITE:
    bprintf(b, "required event %s did not happen before the assertion site", event);
    break;
  case VG_R_WRONG_ORDER:
    bprintf(b, "%s happened, but not in the order the assertion requires", event);
    break;
  case VG_R_EARLY_EVENT:
    bprintf(b, "%s is expected after the assertion site but happened before it", event);
    break;
  case VG_R_MISSING_AFTER_SITE:
    bprintf(b, "required event %s did not happen after the assertion site before the bound ended", event);
    break;
  case VG_R_UNEXPECTED_EVENT:
    bprintf(b, "strict mode: %s is not a transition of the automaton here", event);
    break;
  case VG_R_SITE_NOT_REACHED:
    bprintf(b, "strict mode: the bound ended without completing the sequence");
    break;
  default:
    bprintf(b, "no alternative of the assertion held");
  }
}

static void json_string(struct buf *b, const char *s) {
  bprintf(b, "\"");
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      bprintf(b, "\\%c", c);
    else if (c == '\n')
      bprintf(b, "\\n");
    else if (c == '\t')
      bprintf(b, "\\t");
    else if (c < 0x20)
      bprintf(b, "\\u%04x", c);
    else
      bprintf(b, "%c", c);
  }
  bprintf(b, "\"");
}

/* Symbolised frames of the instrumented program: everything above the
 * outermost libvigil entry point. */
/* The end every JSON report shares (thread, pid, backtrace), then one
 * write of the whole line to VIGIL_REPORT; frees the buffer. */
/* The backtrace, the object's end, and the line out to VIGIL_REPORT. */
static void json_backtrace_out(struct buf *j, const struct vg_frame *frames, int nframes) {
  bprintf(j, ",\"backtrace\":[");
  for (int i = 0; frames && i < nframes; i++) {
    struct vg_buf fb = {0};
    vg_frame_json(&fb, &frames[i]);
    bprintf(j, "%s%s", i ? "," : "", fb.p ? fb.p : "{}");
    free(fb.p);
  }
  bprintf(j, "]}\n");
  if (j->p) {
    size_t off = 0;
    while (off < j->len) {
      ssize_t w = write(vg_config.report_fd, j->p + off, j->len - off);
      if (w <= 0)
        break;
      off += (size_t)w;
    }
  }
  free(j->p);
}

static void json_finish(struct buf *j, long tid, const char *tname,
                        const struct vg_frame *frames, int nframes) {
  bprintf(j, ",\"thread\":%ld,\"thread_name\":", tid);
  json_string(j, tname);
  bprintf(j, ",\"pid\":%ld", (long)getpid());
  json_backtrace_out(j, frames, nframes);
}

/* VIGIL_ON_FAILURE=abort, after the report is out. */
static void abort_if_asked(void) {
  if (vg_config.on_failure == VG_ABORT) {
    fprintf(stderr, "vigil: aborting (set VIGIL_ON_FAILURE=log to continue)\n");
    vg_stream_stop(2000); /* the event stream ends with what led here */
    abort();
  }
}

/* The stack's lines in the text report. */
static void text_stack(struct buf *b, const struct vg_frame *frames, int nframes) {
  if (!frames)
    return;
  bprintf(b, "  backtrace:\n");
  for (int i = 0; i < nframes; i++) {
    struct vg_buf fb = {0};
    vg_frame_text(&fb, &frames[i], i);
    bprintf(b, "    %s\n", fb.p ? fb.p : "?");
    free(fb.p);
  }
}

/* The text report's last lines, the thread and its stack, out to stderr. */
static void text_finish(struct buf *b, long tid, const char *tname,
                        const struct vg_frame *frames, int nframes) {
  bprintf(b, "  thread:   %ld (%s)\n", tid, tname);
  text_stack(b, frames, nframes);
  if (b->p) {
    fputs(b->p, stderr);
    fflush(stderr);
  }
  free(b->p);
}

struct sub {
  int alternative;
  struct buf reason_text, event, values, expected;
  const char *reason;
};

static void describe(struct sub *s, const struct vigil_assertion *a,
                     const struct vg_failure *f) {
  memset(s, 0, sizeof *s);
  s->alternative = a->nalternatives > 1 ? f->alternative : -1;
  s->reason = reason_codes[f->reason];
  const char *evtext = "";
  const struct vigil_event_desc *ev = NULL;
  if (f->event >= 0 && f->event < a->nsymbols) {
    ev = &a->symbols[f->event];
    evtext = symbol_text(a, (unsigned)f->event);
  }
  format_values(&s->values, a, ev, f);
  bprintf(&s->event, "%s", evtext);
  explain(&s->reason_text, f, evtext);
  format_expected(&s->expected, a, f->expected);
}

static void release(struct sub *s) {
  free(s->reason_text.p);
  free(s->event.p);
  free(s->values.p);
  free(s->expected.p);
}

/* The value of capture c that failure f names: the check's tuple, else an
 * observed word of the failing event that carries it.  0 when unknown. */
static int capture_value(const struct vigil_assertion *a, const struct vg_failure *f,
                         unsigned c, uint64_t *v) {
  if (f->has_tuple) {
    *v = f->tuple[c];
    return 1;
  }
  if (!f->has_values || f->event < 0 || f->event >= (int)a->nsymbols)
    return 0;
  const struct vigil_event_desc *ev = &a->symbols[f->event];
  for (unsigned i = 0; i < ev->nvalues; i++)
    if (ev->values[i].kind == VIGIL_VAL_CAPTURE && ev->values[i].index == c) {
      *v = f->values[i];
      return 1;
    }
  return 0;
}

/* The violation as a `verdict` event of the stream (docs/stream-format.md,
 * "Verdicts"), from the reporting thread, before the handler and
 * VIGIL_ON_FAILURE act: an abort then ends the stream with it.  Declared on
 * first use (one event per assertion, reason and event; the runtime keeps
 * each name once).  Words: alternative, known (bit k: word 2+k carries a
 * value), key, the captured values, the free variables; at most
 * VIGIL_STREAM_MAX_ARGS.  Called only when the stream is on: out of line,
 * so that a report without it pays one load and one branch. */
static __attribute__((noinline, cold)) void
stream_verdict(const struct vigil_assertion *a, const struct vg_failure *f, int n,
               const char *reason, const char *event) {
  enum { MAX = VIGIL_STREAM_MAX_ARGS };
  const char *types[MAX], *names[MAX];
  char fallback[MAX][16];
  uint64_t w[MAX] = {0};
  unsigned k = 0;
  types[k] = "u64", names[k] = "alternative";
  w[k++] = n == 1 && a->nalternatives > 1 ? (uint64_t)f->alternative + 1 : 0;
  types[k] = "u64", names[k++] = "known";
  types[k] = "ptr", names[k] = "key";
  if (f->has_key)
    w[1] |= 1, w[k] = f->key;
  k++;
  for (unsigned c = 0; c < a->ncaptures && k < MAX; c++, k++) {
    types[k] = "u64";
    names[k] = a->capture_texts ? a->capture_texts[c] : NULL;
    if (!names[k])
      snprintf(fallback[k], sizeof fallback[k], "capture%u", c + 1), names[k] = fallback[k];
    if (capture_value(a, f, c, &w[k]))
      w[1] |= 1ull << (k - 2);
  }
  for (unsigned x = 0; x < a->nfree && x < VIGIL_MAX_FREE && k < MAX; x++, k++) {
    types[k] = "u64";
    names[k] = a->free_texts ? a->free_texts[x] : NULL;
    if (!names[k])
      snprintf(fallback[k], sizeof fallback[k], "free%u", x + 1), names[k] = fallback[k];
    if (f->bound & (1u << x))
      w[1] |= 1ull << (k - 2), w[k] = f->binding[x];
  }
  struct buf name = {0};
  bprintf(&name, "assertion %s %s", a->location, reason);
  if (event && *event)
    bprintf(&name, " %s", event);
  uint32_t id = vigil_stream_declare_named(bstr(&name), "verdict", k, types, names);
  free(name.p);
  if (id != UINT32_MAX)
    vigil_stream_emit(id, k, w);
}

/* Reports failures[0..n) of one assertion as one violation. */
void vg_report(struct vigil_assertion *a, struct vg_header *h,
               const struct vg_failure *const *failures, int n) {
  struct vg_assertion_rt *rt = vg_rt(a);
  if (rt)
    atomic_fetch_add_explicit(&rt->failures, 1, memory_order_relaxed);
  if (h)
    h->reported = 1;

  struct sub subs[VIGIL_MAX_ALTERNATIVES];
  for (int i = 0; i < n; i++)
    describe(&subs[i], a, failures[i]);
  long tid = (long)gettid();
  char tname[32] = "";
  pthread_getname_np(pthread_self(), tname, sizeof tname);
  int nframes = 0;
  struct vg_frame *frames = vg_config.backtrace ? vg_stack(&nframes) : NULL;

  const char *reason = n == 1 ? subs[0].reason : reason_codes[VG_R_NO_ALTERNATIVE];
  struct buf expl = {0};
  if (n == 1)
    bprintf(&expl, "%s", bstr(&subs[0].reason_text));
  else
    bprintf(&expl, "no alternative of the assertion held");

  if (__builtin_expect(__vigil_stream_on, 0))
    stream_verdict(a, failures[0], n, reason, n == 1 ? bstr(&subs[0].event) : "");

  struct vigil_violation v = {
      .assertion = a->location, .text = a->text, .reason = reason,
      .explanation = bstr(&expl), .event = bstr(&subs[0].event),
      .values = bstr(&subs[0].values), .expected = bstr(&subs[0].expected),
      .alternative = n == 1 ? subs[0].alternative : -1, .thread = tid,
      .thread_name = tname};

  if (handler) {
    handler(&v, handler_ctx);
  } else if (vg_config.on_failure != VG_COUNT) {
    struct buf b = {0};
    bprintf(&b, "vigil: assertion failed at %s\n  %s\n", a->location, a->text);
    for (int i = 0; i < n; i++) {
      struct sub *s = &subs[i];
      if (s->alternative >= 0)
        bprintf(&b, "  alternative %d: %s\n", s->alternative + 1,
                a->alternatives[s->alternative].text);
      const char *ind = s->alternative >= 0 ? "    " : "  ";
      bprintf(&b, "%sreason:   %s (%s)\n", ind, bstr(&s->reason_text), s->reason);
      if (s->event.len)
        bprintf(&b, "%sevent:    %s\n", ind, bstr(&s->event));
      if (s->values.len)
        bprintf(&b, "%svalues:   %s\n", ind, bstr(&s->values));
      if (s->expected.len)
        bprintf(&b, "%sallowed:  %s\n", ind, bstr(&s->expected));
    }
    text_finish(&b, tid, tname, frames, nframes);
  }

  if (vg_config.report_fd >= 0) {
    struct buf j = {0};
    bprintf(&j, "{\"assertion\":");
    json_string(&j, a->location);
    bprintf(&j, ",\"text\":");
    json_string(&j, a->text);
    bprintf(&j, ",\"reason\":");
    json_string(&j, reason);
    bprintf(&j, ",\"explanation\":");
    json_string(&j, bstr(&expl));
    bprintf(&j, ",\"event\":");
    json_string(&j, bstr(&subs[0].event));
    bprintf(&j, ",\"values\":");
    json_string(&j, bstr(&subs[0].values));
    bprintf(&j, ",\"allowed\":");
    json_string(&j, bstr(&subs[0].expected));
    if (n > 1) {
      bprintf(&j, ",\"alternatives\":[");
      for (int i = 0; i < n; i++) {
        bprintf(&j, "%s{\"alternative\":%d,\"reason\":", i ? "," : "", subs[i].alternative + 1);
        json_string(&j, subs[i].reason);
        bprintf(&j, ",\"event\":");
        json_string(&j, bstr(&subs[i].event));
        bprintf(&j, "}");
      }
      bprintf(&j, "]");
    }
    json_finish(&j, tid, tname, frames, nframes);
  }
  free(frames);
  free(expl.p);
  for (int i = 0; i < n; i++)
    release(&subs[i]);
  abort_if_asked();
}

/* A violation that is not an assertion's (monitors, runtime/monitor.c): the
 * caller fills `v` except the thread; `heading` is the first line of the
 * text report, `lines` and `tail` extra "label:", "value" pairs
 * (NULL-terminated) shown after the event and after the allowed events,
 * `json` extra members (each starting with ',').
 * Same handler, VIGIL_REPORT and VIGIL_ON_FAILURE behaviour as assertions. */
/* The report on stderr (or to the handler): the text form. */
static void report_text(struct vigil_violation *v, const char *heading,
                        const char *const *lines, const char *const *tail,
                        long tid, const char *tname, const struct vg_frame *frames, int nframes) {
  if (handler) {
    handler(v, handler_ctx);
    return;
  }
  if (vg_config.on_failure == VG_COUNT)
    return;
  struct buf b = {0};
  bprintf(&b, "%s\n", heading);
  if (v->text && *v->text)
    bprintf(&b, "  %s\n", v->text);
  bprintf(&b, "  reason:   %s (%s)\n", v->explanation, v->reason);
  if (v->event && *v->event)
    bprintf(&b, "  event:    %s\n", v->event);
  for (const char *const *l = lines; l && l[0]; l += 2)
    bprintf(&b, "  %-9s %s\n", l[0], l[1]);
  if (v->values && *v->values)
    bprintf(&b, "  values:   %s\n", v->values);
  if (v->expected && *v->expected)
    bprintf(&b, "  allowed:  %s\n", v->expected);
  for (const char *const *l = tail; l && l[0]; l += 2)
    bprintf(&b, "  %-9s %s\n", l[0], l[1]);
  text_finish(&b, tid, tname, frames, nframes);
}

/* `core`: the JSON line's object up to the backtrace, written by the
 * caller (an automaton violation's core shape); else the assertion
 * report's keys, then `json` (the caller's extra keys), then the thread. */
static void report(struct vigil_violation *v, const char *heading, const char *const *lines,
                   const char *const *tail, const char *json, int core) {
  long tid = (long)gettid();
  char tname[32] = "";
  pthread_getname_np(pthread_self(), tname, sizeof tname);
  v->thread = tid;
  v->thread_name = tname;
  int nframes = 0;
  struct vg_frame *frames = vg_config.backtrace ? vg_stack(&nframes) : NULL;
  report_text(v, heading, lines, tail, tid, tname, frames, nframes);
  if (vg_config.report_fd >= 0 && core) {
    struct buf j = {0};
    bprintf(&j, "%s", json ? json : "{");
    json_backtrace_out(&j, frames, nframes);
  } else if (vg_config.report_fd >= 0) {
    struct buf j = {0};
    bprintf(&j, "{\"assertion\":");
    json_string(&j, v->assertion);
    bprintf(&j, ",\"text\":");
    json_string(&j, v->text ? v->text : "");
    bprintf(&j, ",\"reason\":");
    json_string(&j, v->reason);
    bprintf(&j, ",\"explanation\":");
    json_string(&j, v->explanation);
    bprintf(&j, ",\"event\":");
    json_string(&j, v->event ? v->event : "");
    bprintf(&j, ",\"values\":");
    json_string(&j, v->values ? v->values : "");
    bprintf(&j, ",\"allowed\":");
    json_string(&j, v->expected ? v->expected : "");
    if (json)
      bprintf(&j, "%s", json);
    json_finish(&j, tid, tname, frames, nframes);
  }
  free(frames);
  abort_if_asked();
}

void vg_report_violation(struct vigil_violation *v, const char *heading,
                         const char *const *lines, const char *const *tail,
                         const char *json) {
  report(v, heading, lines, tail, json, 0);
}

void vg_report_core_violation(struct vigil_violation *v, const char *heading,
                              const char *const *lines, const char *const *tail,
                              const char *core) {
  report(v, heading, lines, tail, core, 1);
}

/* The string builder, for the callers of vg_report_violation. */
void vg_bprintf(struct vg_buf *vb, const char *fmt, ...) {
  struct buf b = {vb->p, vb->len, vb->cap};
  va_list ap;
  va_start(ap, fmt);
  char small[512];
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n >= 0 && (size_t)n < sizeof small) {
    bprintf(&b, "%s", small);
  } else if (n >= 0) {
    char *big = malloc((size_t)n + 1);
    if (big) {
      va_start(ap, fmt);
      vsnprintf(big, (size_t)n + 1, fmt, ap);
      va_end(ap);
      bprintf(&b, "%s", big);
      free(big);
    }
  }
  vb->p = b.p;
  vb->len = b.len;
  vb->cap = b.cap;
}

void vg_bjson(struct vg_buf *vb, const char *s) {
  struct buf b = {vb->p, vb->len, vb->cap};
  json_string(&b, s ? s : "");
  vb->p = b.p;
  vb->len = b.len;
  vb->cap = b.cap;
}
