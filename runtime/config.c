/*
 * config.c — reads the VIGIL_* environment once, when the program loads.
 * A bad value is reported on stderr and the default used: configuration
 * mistakes never stop the program being verified.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct vg_config vg_config = {.on_failure = VG_ABORT,
                              .algorithm = VG_TAGS,
                              .backtrace = 1,
                              .report_fd = -1,
                              .precise = 1,
                              .shortcuts = 1,
                              .store_limit = 1u << 20};
extern size_t vg_memory_limit;
void vg_stats_at_exit(void);
void __vigil_test_configure(int algorithm, size_t store_limit, int on_failure,
                            int shortcuts);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static void init(void);

static void init(void) {
  const char *v;
  if ((v = getenv("VIGIL_ON_FAILURE")) && *v) {
    if (!strcmp(v, "abort")) vg_config.on_failure = VG_ABORT;
    else if (!strcmp(v, "log")) vg_config.on_failure = VG_LOG;
    else if (!strcmp(v, "count")) vg_config.on_failure = VG_COUNT;
    else vg_bad_value("VIGIL_ON_FAILURE", v, "abort, log or count");
  }
  if ((v = getenv("VIGIL_ALGORITHM")) && *v) {
    if (!strcmp(v, "tags")) vg_config.algorithm = VG_TAGS;
    else if (!strcmp(v, "history")) vg_config.algorithm = VG_HISTORY;
    else vg_bad_value("VIGIL_ALGORITHM", v, "tags or history");
  }
  if ((v = getenv("VIGIL_PRECISE")) && *v) {
    if (!strcmp(v, "0")) vg_config.precise = 0;
    else if (!strcmp(v, "1")) vg_config.precise = 1;
    else vg_bad_value("VIGIL_PRECISE", v, "0 or 1");
  }
  /* the compiler's switch: a program built and run with it makes every
   * transition in the generic engine (tests compare the two) */
  if ((v = getenv("VIGIL_FAST_PATH")) && !strcmp(v, "0"))
    vg_config.shortcuts = 0;
  if ((v = getenv("VIGIL_STATS")) && *v)
    vg_config.stats = strcmp(v, "0") != 0;
  if ((v = getenv("VIGIL_BACKTRACE")) && *v)
    vg_config.backtrace = strcmp(v, "0") != 0;
  if ((v = getenv("VIGIL_STORE_LIMIT")) && *v) {
    size_t n;
    if (!vg_parse_size("VIGIL_STORE_LIMIT", v, &n)) {
      size_t p = 16;
      while (p <= n / 2) p *= 2; /* stores grow in powers of two */
      vg_config.store_limit = p;
    }
  }
  if ((v = getenv("VIGIL_MEMORY_LIMIT")) && *v) {
    size_t n;
    if (!vg_parse_size("VIGIL_MEMORY_LIMIT", v, &n))
      vg_memory_limit = n;
  }
  if ((v = getenv("VIGIL_REPORT")) && *v) {
    vg_config.report_fd = open(v, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (vg_config.report_fd < 0)
      perror("vigil: cannot open VIGIL_REPORT file; JSON reports disabled");
  }
  atexit(vg_stats_at_exit);
}

static atomic_int ready;

static void init_once(void) {
  init();
  atomic_store_explicit(&ready, 1, memory_order_release);
}

/* Every runtime entry calls this: after start-up it is one load. */
void vg_config_init(void) {
  if (!atomic_load_explicit(&ready, memory_order_acquire))
    pthread_once(&once, init_once);
}

/* Read the environment before main: the inline fast path never calls into
 * the runtime, so it cannot be the one to trigger this.  The slow paths
 * still call vg_config_init (a no-op by then) for programs whose
 * constructors run instrumented code before this one. */
__attribute__((constructor)) static void config_at_load(void) { vg_config_init(); }

/* For the runtime's unit tests (tests/runtime): configuration without the
 * environment.  algorithm: enum vg_algorithm; store_limit 0 keeps it. */
void __vigil_test_configure(int algorithm, size_t store_limit, int on_failure,
                            int shortcuts) {
  vg_config_init();
  vg_config.shortcuts = shortcuts;
  vg_config.algorithm = algorithm;
  if (store_limit)
    vg_config.store_limit = store_limit; /* exact, unlike the variable */
  vg_config.on_failure = on_failure;
  vg_config.backtrace = 0;
}
