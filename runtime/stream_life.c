/*
 * stream_life.c — the stream's life in a traced program: start before
 * main when VIGIL_STREAM is set, flush at exit, on VIGIL_ON_FAILURE=abort
 * (report.c) and on fatal signals, and a stream of its own for a forked
 * child.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>

#include "stream.h"

static void at_exit(void) { vg_stream_stop(vg_stream_config.linger_ms + 1000); }

static void in_child(void) {
  vg_stream_forget_all();
  vg_stream_consumer_forget();
  vg_stream_writer_forget();
  vg_link_forget();
  vg_stream_consumer_start();
}

/* Fatal signals: publish this thread's chunk, let the consumer ship
 * everything (bounded), then die as the signal says. */
static const int fatal[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTERM, SIGINT};
static struct sigaction previous[sizeof fatal / sizeof *fatal];

static void on_fatal(int sig) {
  static volatile sig_atomic_t once;
  if (!once) {
    once = 1;
    vg_stream_publish_current();
    vg_stream_stop(2000);
  }
  for (size_t i = 0; i < sizeof fatal / sizeof *fatal; i++)
    if (fatal[i] == sig)
      sigaction(sig, &previous[i], NULL);
  raise(sig);
}

static void catch_fatal_signals(void) {
  for (size_t i = 0; i < sizeof fatal / sizeof *fatal; i++) {
    struct sigaction sa = {.sa_handler = on_fatal, .sa_flags = SA_NODEFER | SA_RESETHAND};
    sigemptyset(&sa.sa_mask);
    struct sigaction old;
    if (sigaction(fatal[i], NULL, &old) == 0 && old.sa_handler != SIG_DFL &&
        !(fatal[i] == SIGSEGV || fatal[i] == SIGABRT || fatal[i] == SIGBUS))
      continue; /* the program handles it: leave it alone */
    sigaction(fatal[i], &sa, &previous[i]);
  }
}

__attribute__((constructor(101))) static void stream_init(void) {
  const char *dest = getenv("VIGIL_STREAM");
  if (!dest || !*dest)
    return;
  vg_stream_config.dest = dest;
  vg_stream_read_environment();
  if (vg_link_open(dest) != 0)
    return;
  __vigil_stream_on = 1;
  atexit(at_exit);
  pthread_atfork(NULL, NULL, in_child);
  catch_fatal_signals();
  vg_stream_consumer_start();
}

void vigil_stream_flush(void) { vg_stream_flush_wait(); }
