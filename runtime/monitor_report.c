/*
 * monitor_report.c — a monitor violation as vigil reports every violation
 * (report.c: the handler, VIGIL_ON_FAILURE, VIGIL_REPORT JSON Lines,
 * backtraces), and as a `verdict` event of the stream when it is on.
 * Cold code: nothing here is on the event path.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "monitor_internal.h"
#include "vigil/stream.h"

static const char *const reason_codes[] = {
    [R_INVALID] = "monitor-invalid-event",
    [R_NOT_FINAL] = "not-final",
    [R_NOT_FINAL_AT_EXIT] = "not-final-at-exit",
    [R_GUARD] = "monitor-guard",
    [R_INVARIANT] = "monitor-invariant",
    [R_LTL] = "monitor-ltl",
};

/* An LTL verdict's set of Büchi states, by name: S0|S2 ("none" if empty),
 * as the kernel engine writes it. */
static void format_states(struct vg_buf *b, const struct vigil_monitor_model *md, uint32_t set) {
  const char *sep = "";
  for (uint32_t s = 0; s < md->nstates && s < 32; s++)
    if (set & (1u << s)) {
      vg_bprintf(b, "%s%s", sep, md->state_names[s]);
      sep = "|";
    }
  if (!*sep)
    vg_bprintf(b, "none");
}

static void format_key(struct vg_buf *b, uint64_t v) {
  if (v < 1000000)
    vg_bprintf(b, "%llu", (unsigned long long)v);
  else if (v >= 0xffffffffffff0000ull)
    vg_bprintf(b, "%lld", (long long)v);
  else
    vg_bprintf(b, "0x%llx", (unsigned long long)v);
}

const char *vg_monitor_basename(const char *p) {
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

/* The violation as a `verdict` event of the stream (docs/stream-format.md,
 * "Verdicts"), from the reporting thread, before the report and
 * VIGIL_ON_FAILURE act.  One event per monitor, reason, state and event
 * (declared on first use: the runtime keeps each name once); the words are
 * the instance's key, the state's and the event's index in the model (-1:
 * no model event: `forget`, or an exit check) and the binding rule's line
 * (0 at exit).  Called only when the stream is on: out of line, so that
 * a report without it pays one load and one branch. */
static __attribute__((noinline, cold)) void stream_verdict(const struct vigil_monitor *m,
                                                          const struct violation *x,
                                                          const char *state,
                                                          const char *event) {
  static const char *const types[4] = {"u64", "u64", "i64", "u64"};
  static const char *const names[4] = {"key", "state", "event", "line"};
  struct vg_buf name = {0};
  vg_bprintf(&name, "monitor %s %s %s", m->name, reason_codes[x->reason], state);
  if (x->rule)
    vg_bprintf(&name, " %s", event);
  uint32_t id =
      name.p ? vigil_stream_declare_named(name.p, "verdict", 4, types, names) : UINT32_MAX;
  free(name.p);
  int model_event = x->rule && x->rule->event != VIGIL_MONITOR_FORGET;
  uint64_t w[4] = {x->has_key ? x->key : 0, x->state,
                   model_event ? x->rule->event : (uint64_t)-1, x->rule ? x->rule->line : 0};
  if (id != UINT32_MAX)
    vigil_stream_emit(id, 4, w);
}

/* A hybrid automaton's guard or invariant the violation is about, as the
 * model writes it (NULL for the other reasons). */
static const struct vigil_monitor_constraint *constraint_of(const struct vigil_monitor_model *md,
                                                            const struct violation *x) {
  const struct vigil_monitor_constraint *c = NULL;
  if (x->reason == R_GUARD && md->guards && x->guard < md->nguards)
    c = &md->guards[x->guard];
  else if (x->reason == R_INVARIANT && md->invariants && x->state < md->nstates)
    c = &md->invariants[x->state];
  return c && c->text ? c : NULL;
}

/* The one sentence of the report, and the values. */
static void explain(struct vg_buf *expl, struct vg_buf *values, const struct violation *x,
                    const char *state, const char *event, const char *constraint) {
  switch (x->reason) {
  case R_INVALID:
    vg_bprintf(expl, "event %s is not allowed in state %s", event, state);
    break;
  case R_NOT_FINAL:
    vg_bprintf(expl, "the instance was forgotten in state %s, which is not final", state);
    break;
  case R_NOT_FINAL_AT_EXIT:
    vg_bprintf(expl, "%s in state %s, which is not final",
               strcmp(x->when, "thread exit") ? "the program exited" : "the thread exited", state);
    break;
  case R_GUARD:
    vg_bprintf(expl, "guard `%s` is false for event %s in state %s", constraint, event, state);
    break;
  case R_INVARIANT:
    vg_bprintf(expl, "invariant `%s` expired in state %s", constraint, state);
    if (x->rule)
      vg_bprintf(expl, " before event %s", event);
    break;
  case R_LTL:
    vg_bprintf(expl, "no state of the automaton holds after %s in state %s", event, state);
    break;
  }
  if (x->has_key) {
    vg_bprintf(values, "key = ");
    format_key(values, x->key);
  }
  if (x->reason == R_INVARIANT)
    vg_bprintf(values, "%sexpired at = %llu ns", x->has_key ? ", " : "",
               (unsigned long long)x->at);
}

static const char *const kinds[] = {
    [R_INVALID] = "event",   [R_NOT_FINAL] = "not-final", [R_NOT_FINAL_AT_EXIT] = "not-final",
    [R_GUARD] = "guard",     [R_INVARIANT] = "invariant", [R_LTL] = "ltl",
};

/* The field that keys an object-scope instance.  The rule table has no
 * member for it (adding one would change the binding table's ABI); the
 * rule's text is the binding line as gen-monitor normalises it
 * (monitor_c.rs, rule_text), which writes ` key=FIELD` after the source. */
static void key_field(struct vg_buf *json, const struct vigil_monitor_rule *r) {
  const char *k = r ? strstr(r->text, " key=") : NULL;
  if (!k) {
    vg_bprintf(json, "null");
    return;
  }
  k += 5;
  vg_bprintf(json, "\"%.*s\"", (int)strcspn(k, " "), k);
}

/* The core keys every engine writes (docs/integration.md, "Automaton
 * violations (all engines)"), in their order: the thread that reports is
 * the task, except for an invariant that expired (the timer thread reports
 * it) or an object or global instance left at program exit, which no task
 * caused.  A thread-scope instance is the thread that exits. */
static void json_core(struct vg_buf *json, const struct vigil_monitor *m, const struct violation *x,
                      const char *state, const char *event, const char *tname) {
  const struct vigil_monitor_model *md = m->model;
  const struct vk_model *vk = &((struct vg_monitor_rt *)m->runtime)->vk;
  int by_task = x->rule || (x->when && !strcmp(x->when, "thread exit")) ||
                (m->scope == VIGIL_MONITOR_THREAD && x->when && !strcmp(x->when, "program exit"));
  vg_bprintf(json, "{\"type\":\"violation\",\"engine\":\"process\",\"model\":");
  vg_bjson(json, md->name);
  vg_bprintf(json, ",\"kind\":\"%s\",\"state\":", kinds[x->reason]);
  vg_bjson(json, state);
  vg_bprintf(json, ",\"event\":");
  vg_bjson(json, *event ? event : "none");
  vg_bprintf(json, ",\"allowed\":[");
  const char *sep = "";
  for (uint32_t e = 0; x->reason != R_LTL && x->state < md->nstates && e < md->nevents; e++)
    if (VK_NEXT(vk, x->state * md->nevents + e) != VK_NONE) {
      vg_bprintf(json, "%s", sep);
      vg_bjson(json, md->event_names[e]);
      sep = ",";
    }
  vg_bprintf(json, "],\"scope\":");
  vg_bjson(json, m->scope_text);
  vg_bprintf(json, ",\"key\":");
  if (m->scope == VIGIL_MONITOR_OBJECT && x->has_key) {
    vg_bprintf(json, "{\"field\":");
    key_field(json, x->rule);
    vg_bprintf(json, ",\"value\":%llu}", (unsigned long long)x->key);
  } else if (m->scope == VIGIL_MONITOR_THREAD && (x->has_key || by_task)) {
    /* the instance is the thread itself: no field of the source keys it */
    vg_bprintf(json, "{\"field\":null,\"value\":%llu}",
               (unsigned long long)(x->has_key ? x->key : (uint64_t)gettid()));
  } else {
    vg_bprintf(json, "null");
  }
  if (x->rule) {
    struct vg_buf at = {0};
    vg_bprintf(&at, "%s:%u", m->binding, x->rule->line);
    vg_bprintf(json, ",\"rule\":");
    vg_bjson(json, at.p);
    vg_bprintf(json, ",\"source\":");
    vg_bjson(json, x->rule->source);
    free(at.p);
  } else {
    vg_bprintf(json, ",\"rule\":null,\"source\":null");
  }
  uint64_t t = x->reason == R_INVARIANT ? x->at : vg_monitor_now();
  vg_bprintf(json, ",\"time_ns\":%llu", (unsigned long long)t);
  if (by_task)
    vg_bprintf(json, ",\"pid\":%ld", (long)gettid());
  else
    vg_bprintf(json, ",\"pid\":null");
  int cpu = sched_getcpu();
  vg_bprintf(json, ",\"tgid\":%ld,\"cpu\":", (long)getpid());
  if (cpu >= 0 && by_task)
    vg_bprintf(json, "%d", cpu);
  else
    vg_bprintf(json, "null");
  vg_bprintf(json, ",\"comm\":");
  if (by_task)
    vg_bjson(json, tname);
  else
    vg_bprintf(json, "null");
}

/* The process engine's extras, after the core. */
static void json_extras(struct vg_buf *json, const struct vigil_monitor *m, const struct violation *x,
                        const char *explanation, const struct vigil_monitor_constraint *c,
                        const char *render) {
  const struct vigil_monitor_model *md = m->model;
  vg_bprintf(json, ",\"monitor\":");
  vg_bjson(json, m->name);
  vg_bprintf(json, ",\"binding\":");
  vg_bjson(json, m->binding);
  vg_bprintf(json, ",\"model_file\":");
  vg_bjson(json, md->path);
  vg_bprintf(json, ",\"reason\":");
  vg_bjson(json, reason_codes[x->reason]);
  vg_bprintf(json, ",\"explanation\":");
  vg_bjson(json, explanation);
  if (x->rule) {
    vg_bprintf(json, ",\"rule_text\":");
    vg_bjson(json, x->rule->text);
  }
  if (x->reason == R_NOT_FINAL || x->reason == R_NOT_FINAL_AT_EXIT) {
    const struct vk_model *vk = &((struct vg_monitor_rt *)m->runtime)->vk;
    const char *sep = "";
    vg_bprintf(json, ",\"final\":[");
    for (uint32_t s = 0; s < md->nstates; s++)
      if (VK_FINAL(vk, s)) {
        vg_bprintf(json, "%s", sep);
        vg_bjson(json, md->state_names[s]);
        sep = ",";
      }
    vg_bprintf(json, "]");
  }
  if (c) { /* as the offline engine's reports name them */
    struct vg_buf at = {0};
    vg_bprintf(&at, "%s:%u", md->path, c->line);
    vg_bprintf(json, ",\"constraint\":");
    vg_bjson(json, c->text);
    vg_bprintf(json, ",\"constraint_at\":");
    vg_bjson(json, at.p);
    free(at.p);
  }
  vg_bprintf(json, ",\"render\":");
  vg_bjson(json, render);
}

/* The thread's inline paths are parked for the report's duration: a
 * handler (or an allocator the program defines) calling monitored code
 * raises events the runtime must see and ignore (monitor.c). */
void vg_monitor_report(struct vg_monitor_rt *rt, const struct violation *x) {
  vg_monitor_park();
  struct vigil_monitor *m = rt->m;
  const struct vigil_monitor_model *md = m->model;
  atomic_fetch_add_explicit(&rt->failures, 1, memory_order_relaxed);
  struct vg_buf states = {0};
  if (x->reason == R_LTL)
    format_states(&states, md, x->state);
  const char *state = x->reason == R_LTL ? (states.p ? states.p : "?")
                      : x->state < md->nstates ? md->state_names[x->state] : "?";
  const char *event = "";
  if (x->rule)
    event = x->rule->event == VIGIL_MONITOR_FORGET ? "forget" : md->event_names[x->rule->event];
  const struct vigil_monitor_constraint *c = constraint_of(md, x);

  struct vg_buf assertion = {0}, text = {0}, expl = {0}, ev = {0}, values = {0},
                expected = {0}, heading = {0}, render = {0}, json = {0}, where = {0};
  vg_bprintf(&assertion, "%s (%s)", m->name, m->binding);
  vg_bprintf(&text, "model %s (%s), scope %s", md->name, md->path, m->scope_text);
  explain(&expl, &values, x, state, event, c ? c->text : "?");
  if (x->rule)
    vg_bprintf(&ev, "%s (%s:%u)", x->rule->text, vg_monitor_basename(m->binding), x->rule->line);
  else
    vg_bprintf(&ev, "%s", x->when);
  const char *sep = "";
  const struct vk_model *vk = &((struct vg_monitor_rt *)m->runtime)->vk;
  for (uint32_t e = 0; x->reason != R_LTL && e < md->nevents; e++)
    if (vk->next[x->state * md->nevents + e] != VK_NONE) {
      vg_bprintf(&expected, "%s%s", sep, md->event_names[e]);
      sep = " | ";
    }
  if (__builtin_expect(__vigil_stream_on, 0))
    stream_verdict(m, x, state, event);
  vg_bprintf(&heading, "vigil: monitor violation: %s (%s)", m->name, m->binding);
  if (x->reason == R_INVALID || (x->reason == R_GUARD && x->rule))
    vg_bprintf(&render, "vigil render %s --highlight %s:%s", md->path, state, event);
  else
    vg_bprintf(&render, "vigil render %s", md->path);
  if (c)
    vg_bprintf(&where, "%s (%s:%u)", c->text, vg_monitor_basename(md->path), c->line);
  char tname[32] = "";
  pthread_getname_np(pthread_self(), tname, sizeof tname);
  json_core(&json, m, x, state, event, tname);
  json_extras(&json, m, x, expl.p, c, render.p);

  const char *lines[] = {"state:", state, c ? (x->reason == R_GUARD ? "guard:" : "invariant:") : NULL,
                         where.p, NULL, NULL};
  const char *tail[] = {"picture:", render.p ? render.p : "", NULL, NULL};
  struct vigil_violation v = {
      .assertion = assertion.p, .text = text.p, .reason = reason_codes[x->reason],
      .explanation = expl.p, .event = ev.p ? ev.p : "", .values = values.p ? values.p : "",
      .expected = expected.p ? expected.p : "", .alternative = -1};
  vg_report_core_violation(&v, heading.p, lines, tail, json.p);
  free(assertion.p), free(text.p), free(expl.p), free(ev.p), free(values.p);
  free(expected.p), free(heading.p), free(render.p), free(json.p), free(where.p), free(states.p);
  vg_monitor_unpark();
}
