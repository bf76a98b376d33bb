/*
 * vigil/runtime.h — the public C API of libvigil, the runtime linked into
 * every program built with vigil-cc.  Most programs never include it: the
 * environment variables below configure the runtime.  Include it to install
 * a custom violation handler or to read statistics.
 *
 *   VIGIL_ON_FAILURE = abort (default) | log | count
 *   VIGIL_REPORT     = path   append one JSON object per violation (JSON Lines)
 *   VIGIL_STATS      = 1      per-assertion totals on stderr at exit
 *   VIGIL_ALGORITHM  = tags (default) | history
 *   VIGIL_BACKTRACE  = 0      leave backtraces out of reports
 */
#ifndef VIGIL_RUNTIME_H
#define VIGIL_RUNTIME_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a violation report contains.  Strings are valid for the duration of
 * the handler call only. */
struct vigil_violation {
  const char *assertion;    /* "file.c:12:5" */
  const char *text;         /* the assertion as written */
  const char *reason;       /* stable code, e.g. "missing-before-site" */
  const char *explanation;  /* one sentence for humans */
  const char *event;        /* text of the event concerned (may be "") */
  const char *values;       /* "c = 0x1234, f = 0x5678" (may be "") */
  const char *expected;     /* events that were allowed instead (may be "") */
  int alternative;          /* top-level OR alternative, -1 if the assertion has one */
  long thread;              /* kernel thread id */
  const char *thread_name;
};

/* Called for every violation instead of the default stderr report.  The
 * JSON report (VIGIL_REPORT) is still written and VIGIL_ON_FAILURE still
 * applies after the handler returns (abort, log or count).  Returns the
 * previous handler.  Passing NULL restores the default. */
typedef void (*vigil_handler_fn)(const struct vigil_violation *v, void *ctx);
vigil_handler_fn vigil_set_handler(vigil_handler_fn handler, void *ctx);

/* Totals over the whole program so far: assertions, then monitors. */
struct vigil_totals {
  uint64_t assertions;  /* assertions that saw at least one event */
  uint64_t instances;   /* bounds entered */
  uint64_t events;      /* events delivered to automata */
  uint64_t passes;      /* bounds in which the site was reached without failure */
  uint64_t failures;    /* violations reported */
  uint64_t dropped;     /* instances dropped: their verdict cannot be known
                           (no memory, a limit, an abandoned bound) */
  /* Monitors on C functions (vigil/monitor.h).  Their events, violations and
   * dropped events are also counted in events, failures and dropped. */
  uint64_t monitors;         /* monitors that saw at least one event */
  uint64_t monitor_events;   /* events delivered to monitors */
  uint64_t monitor_failures; /* monitor violations reported */
  /* Per-thread bounds closed because their exit never ran (a longjmp out
   * of the bound function); their unsettled instances count in dropped. */
  uint64_t abandoned;
};
void vigil_get_totals(struct vigil_totals *out);

#ifdef __cplusplus
}
#endif

#endif /* VIGIL_RUNTIME_H */
