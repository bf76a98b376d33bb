/*
 * automaton_builder.h — builds vigil_assertion structures by hand for the
 * runtime's unit tests, as the link-time pass would, from a compact spec:
 *
 *   "A B? C|D S E"   events A, optional B, OR block {C, D}, the site S, E
 *
 * Events are single upper-case letters other than S.  Bounds are added.
 * With `nonstatic` == 1, every event gets one value slot captured from
 * capture 0 (so only occurrences carrying the captured value are the
 * assertion's); with 2, only the events after the site do (pre-site events
 * stay static: the engine runs such automata forward).
 */
#ifndef VIGIL_TEST_AUTOMATON_BUILDER_H
#define VIGIL_TEST_AUTOMATON_BUILDER_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vigil/abi.h"

struct built {
  struct vigil_assertion a;
  struct vigil_automaton au[VIGIL_MAX_ALTERNATIVES];
  struct vigil_event_desc ev[VIGIL_MAX_ALTERNATIVES][VIGIL_MAX_EVENTS];
  struct vigil_value_desc val[VIGIL_MAX_ALTERNATIVES][VIGIL_MAX_EVENTS];
  char names[VIGIL_MAX_ALTERNATIVES][VIGIL_MAX_EVENTS][8];
  int letter_index[VIGIL_MAX_ALTERNATIVES][26]; /* letter -> event index */
  _Alignas(64) unsigned char instance[VIGIL_INSTANCE_BYTES(VIGIL_MAX_ALTERNATIVES,
                                                          VIGIL_MAX_CAPTURES)];
};

/* Parses one alternative; returns 0 or -1 on a malformed spec. */
static int build_alternative(struct built *b, int alt, const char *spec,
                             int nonstatic) {
  struct vigil_event_desc *ev = b->ev[alt];
  int element[VIGIL_MAX_EVENTS]; /* element number of each event */
  int optional_el[VIGIL_MAX_EVENTS] = {0};
  int n = 0, el = 0, site = -1;
  memset(b->letter_index[alt], -1, sizeof b->letter_index[alt]);
  /* event 0: first bound */
  ev[n].kind = VIGIL_EV_START;
  ev[n].function = "bound";
  ev[n].text = "call(bound)";
  element[n++] = el++;
  const char *p = spec;
  while (*p) {
    while (*p == ' ')
      p++;
    if (!*p)
      break;
    int first_in_block = n;
    for (;;) {
      char c = *p++;
      if (c < 'A' || c > 'Z' || n >= VIGIL_MAX_EVENTS - 1)
        return -1;
      struct vigil_event_desc *e = &ev[n];
      snprintf(b->names[alt][n], sizeof b->names[alt][n], "%c", c);
      e->text = b->names[alt][n];
      e->function = b->names[alt][n];
      if (c == 'S') {
        e->kind = VIGIL_EV_SITE;
        e->function = NULL;
        e->text = "TESLA_ASSERTION_SITE";
        site = n;
      } else {
        e->kind = VIGIL_EV_CALL;
        b->letter_index[alt][c - 'A'] = n;
        if (nonstatic == 1 || (nonstatic == 2 && site >= 0)) {
          struct vigil_value_desc *v = &b->val[alt][n];
          v->kind = VIGIL_VAL_CAPTURE;
          v->capture = 0;
          v->text = "x";
          e->values = v;
          e->nvalues = 1;
        }
      }
      element[n++] = el;
      if (*p == '?') {
        optional_el[el] = 1;
        p++;
      }
      if (*p == '|') {
        p++;
        continue;
      }
      break;
    }
    if (n - first_in_block > 1)
      for (int i = first_in_block; i < n; i++)
        ev[i].flags |= VIGIL_EF_OR;
    el++;
  }
  if (site < 0)
    return -1;
  ev[n].kind = VIGIL_EV_END;
  ev[n].function = "bound";
  ev[n].text = "returnfrom(bound)";
  element[n++] = el++;
  int nev = n;
  /* successors (§3.1.3): the events of the following elements up to and
   * including the first non-optional one; OR members also have the later
   * members of their own block */
  for (int i = 0; i < nev; i++) {
    uint64_t kept = 0;
    int stop_el = -1;
    for (int j = i + 1; j < nev; j++) {
      if (element[j] == element[i]) {
        kept |= 1ull << j;
        continue;
      }
      if (stop_el >= 0 && element[j] != stop_el)
        break;
      kept |= 1ull << j;
      if (!optional_el[element[j]])
        stop_el = element[j];
    }
    ev[i].successors = kept;
    for (int j = 0; j < nev; j++)
      if (j != i && element[j] == element[i] && (ev[i].flags & VIGIL_EF_OR))
        ev[i].or_block |= 1ull << j;
    if (optional_el[element[i]])
      ev[i].flags |= VIGIL_EF_OPTIONAL;
    if (kept & (1ull << (nev - 1)))
      ev[i].flags |= VIGIL_EF_FINAL;
    if (i > site && i < nev - 1)
      ev[i].flags |= VIGIL_EF_POST_SITE;
    if (!ev[i].nvalues)
      ev[i].flags |= VIGIL_EF_STATIC;
  }
  struct vigil_automaton *au = &b->au[alt];
  au->events = ev;
  au->text = spec;
  au->nevents = (uint8_t)nev;
  au->site = (uint8_t)site;
  au->is_static = 1;
  for (int i = 0; i < nev; i++)
    if (ev[i].nvalues)
      au->is_static = 0;
  return 0;
}

/* specs: alternatives separated by "#". */
static struct built *build(const char *specs, int mode, int nonstatic) {
  struct built *b = aligned_alloc(64, (sizeof(struct built) + 63) / 64 * 64);
  memset(b, 0, sizeof *b);
  char tmp[512];
  snprintf(tmp, sizeof tmp, "%s", specs);
  int nalts = 0;
  char *save = NULL;
  for (char *part = strtok_r(tmp, "#", &save); part;
       part = strtok_r(NULL, "#", &save)) {
    char *copy = strdup(part);
    if (build_alternative(b, nalts, copy, nonstatic) < 0) {
      free(b);
      return NULL;
    }
    nalts++;
  }
  b->a.location = "test.c:1:1";
  b->a.text = strdup(specs);
  b->a.alternatives = b->au;
  b->a.nalternatives = (uint8_t)nalts;
  b->a.mode = (uint8_t)mode;
  b->a.locality = VIGIL_PERTHREAD;
  b->a.ncaptures = nonstatic ? 1 : 0;
  static const char *const cap_texts[] = {"x"};
  b->a.capture_texts = cap_texts;
  return b;
}

#endif
