/*
 * stream_schema.c — the event table: ids, names, kinds and argument types.
 *
 * Declared rarely (once per traced function and kind, at start-up or on
 * first use) and read by the consumer before each batch, so a mutex for
 * writers and an acquire load of the count for the reader: an id handed to
 * a producer is declared before any record carrying it can be shipped.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "stream.h"

const char *const vg_stream_types[3] = {"i64", "u64", "ptr"};

#define MAX_EVENTS 65536
static struct vg_stream_event *table[MAX_EVENTS];
static _Atomic unsigned count;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static uint8_t type_index(const char *t) {
  for (uint8_t i = 0; i < 3; i++)
    if (t && !strcmp(t, vg_stream_types[i]))
      return i;
  return 0;
}

uint32_t vigil_stream_declare(const char *name, const char *kind, unsigned nargs,
                              const char *const *types) {
  return vigil_stream_declare_named(name, kind, nargs, types, NULL);
}

uint32_t vigil_stream_declare_named(const char *name, const char *kind, unsigned nargs,
                                    const char *const *types, const char *const *names) {
  if (nargs > VIGIL_STREAM_MAX_ARGS)
    nargs = VIGIL_STREAM_MAX_ARGS;
  pthread_mutex_lock(&lock);
  unsigned n = atomic_load_explicit(&count, memory_order_relaxed);
  for (unsigned i = 0; i < n; i++)
    if (!strcmp(table[i]->name, name) && !strcmp(table[i]->kind, kind)) {
      pthread_mutex_unlock(&lock);
      return i;
    }
  struct vg_stream_event *e = n < MAX_EVENTS ? calloc(1, sizeof *e) : NULL;
  if (!e || !(e->name = strdup(name))) {
    free(e);
    pthread_mutex_unlock(&lock);
    return UINT32_MAX; /* records with this id are refused by the producer */
  }
  e->kind = kind;
  e->nargs = nargs;
  for (unsigned i = 0; i < nargs; i++) {
    e->types[i] = type_index(types ? types[i] : "u64");
    e->names[i] = names && names[i] ? strdup(names[i]) : NULL;
  }
  int named = 1;
  for (unsigned i = 0; i < nargs; i++)
    named &= e->names[i] != NULL;
  if (!named) /* all or none: one name missing makes it none */
    for (unsigned i = 0; i < nargs; i++) {
      free(e->names[i]);
      e->names[i] = NULL;
    }
  table[n] = e;
  atomic_store_explicit(&count, n + 1, memory_order_release);
  pthread_mutex_unlock(&lock);
  return n;
}

unsigned vg_stream_event_count(void) {
  return atomic_load_explicit(&count, memory_order_acquire);
}

const struct vg_stream_event *vg_stream_event_at(unsigned id) {
  return id < vg_stream_event_count() ? table[id] : NULL;
}
