/*
 * atomic_stats.c — the atomic-region counters and their summary at exit:
 * on stderr with VIGIL_STATS=1 or in count mode (as stats.c does for
 * assertions), and always as one line {"type":"summary","kind":
 * "atomic-stats",...} in VIGIL_REPORT, for tests and tools (`vigil report`
 * skips "summary" lines).
 *
 * The hot counters (begins, ends, whitelisted begins) are plain per-thread
 * words: a shared atomic counter would put one contended cache line on
 * every begin of every thread.  Live threads are on a list (a spin lock
 * taken only at a thread's first begin and at its exit) and are summed at
 * exit; an exiting thread adds its words to the global totals.  The rare
 * counters (remotes, violations, ...) are global atomics, which the
 * backend's signal handler may bump too (lock-free, async-signal-safe).
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic_internal.h"
#include "internal.h"

static _Atomic uint64_t counts[VG_AC_N];
static _Atomic uint64_t hot_done[VG_HOT_N]; /* exited threads */
static struct vg_ar_thread *live;
static atomic_flag live_lock = ATOMIC_FLAG_INIT;

void vg_atomic_count(enum vg_atomic_counter c, uint64_t n) {
  atomic_fetch_add_explicit(&counts[c], n, memory_order_relaxed);
}

static void lock(void) {
  while (atomic_flag_test_and_set_explicit(&live_lock, memory_order_acquire))
    sched_yield();
}
static void unlock(void) { atomic_flag_clear_explicit(&live_lock, memory_order_release); }

void vg_atomic_stats_thread_start(struct vg_ar_thread *t) {
  lock();
  t->next = live;
  live = t;
  t->listed = 1;
  unlock();
}

void vg_atomic_stats_thread_exit(struct vg_ar_thread *t) {
  if (!t->listed)
    return;
  lock();
  for (struct vg_ar_thread **pp = &live; *pp; pp = &(*pp)->next)
    if (*pp == t) {
      *pp = t->next;
      break;
    }
  for (int i = 0; i < VG_HOT_N; i++)
    atomic_fetch_add(&hot_done[i], t->hot[i]);
  t->listed = 0;
  unlock();
}

/* In a fork child only the forking thread is left; the lock may have been
 * held by a thread that no longer exists. */
void vg_atomic_stats_after_fork(struct vg_ar_thread *t) {
  atomic_flag_clear(&live_lock);
  live = NULL;
  if (t->listed) {
    t->next = NULL;
    live = t;
  }
}

struct totals {
  uint64_t c[VG_AC_N], hot[VG_HOT_N];
};

static void sum(struct totals *s) {
  for (int i = 0; i < VG_AC_N; i++)
    s->c[i] = atomic_load(&counts[i]);
  lock();
  for (int i = 0; i < VG_HOT_N; i++) {
    s->hot[i] = atomic_load(&hot_done[i]);
    for (struct vg_ar_thread *t = live; t; t = t->next)
      s->hot[i] += __atomic_load_n(&t->hot[i], __ATOMIC_RELAXED);
  }
  unlock();
}

/* name, counter (>= 0: counts[], < 0: -1-hot index) */
static const struct {
  const char *name;
  int which;
} fields[] = {
    {"begins", -1 - VG_HOT_BEGINS},
    {"ends", -1 - VG_HOT_ENDS},
    {"clears", VG_AC_CLEARS},
    {"self_loops", VG_AC_SELF_LOOPS},
    {"whitelisted", -1 - VG_HOT_WHITELISTED},
    {"unmonitored_no_slot", VG_AC_NO_SLOT},
    {"unmonitored_no_watchpoint", VG_AC_NO_WATCH},
    {"unmonitored_thread_full", VG_AC_THREAD_FULL},
    {"remotes", VG_AC_REMOTES},
    {"remote_repeats", VG_AC_REMOTE_REPEATS},
    {"held", VG_AC_HELD},
    {"timeouts", VG_AC_TIMEOUTS},
    {"serializable", VG_AC_SERIALIZABLE},
    {"violations", VG_AC_VIOLATIONS},
    {"prevented", VG_AC_PREVENTED},
    {"repeated_reports", VG_AC_REPEATED_REPORTS},
    {"pauses", VG_AC_PAUSES},
    {"begin_collisions", VG_AC_COLLISIONS},
    {"begins_queued", VG_AC_QUEUED},
    {"begins_forced", VG_AC_FORCED},
    {"writes_undone", VG_AC_UNDONE},
    {"writes_not_undone", VG_AC_NOT_UNDONE},
    {"reads_settled", VG_AC_SETTLED},
    {"reads_unsettled", VG_AC_UNSETTLED},
    {"waits_extended", VG_AC_EXTENDED},
    {"waits_cut", VG_AC_CUT},
    {"pauses_skipped", VG_AC_PAUSES_SKIPPED},
    {"ends_ahead", VG_AC_ENDS_AHEAD},
};

static uint64_t field(const struct totals *s, int which) {
  return which >= 0 ? s->c[which] : s->hot[-1 - which];
}

static void write_json(const struct totals *s) {
  const char *vg_atomic_mode_name(void);
  const char *vg_atomic_detector_name(void);
  struct vg_buf b = {0};
  vg_bprintf(&b, "{\"type\":\"summary\",\"kind\":\"atomic-stats\",\"mode\":\"%s\","
                 "\"detector\":\"%s\",\"pid\":%ld",
             vg_atomic_mode_name(), vg_atomic_detector_name(), (long)getpid());
  for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
    vg_bprintf(&b, ",\"%s\":%llu", fields[i].name,
               (unsigned long long)field(s, fields[i].which));
  vg_bprintf(&b, "}\n");
  if (b.p) {
    size_t off = 0;
    while (off < b.len) {
      ssize_t w = write(vg_config.report_fd, b.p + off, b.len - off);
      if (w <= 0)
        break;
      off += (size_t)w;
    }
  }
  free(b.p);
}

void vg_atomic_stats_at_exit(void) {
  /* this thread's deferred verdicts; another thread that is still inside
   * an AR when the process exits loses its own (docs/atomic.md) */
  vg_ar_self.busy = 1;
  vg_atomic_flush_pending(&vg_ar_self);
  vg_atomic_train_write();
  struct totals s;
  sum(&s);
  if (vg_config.report_fd >= 0)
    write_json(&s);
  uint64_t unmon = s.c[VG_AC_NO_SLOT] + s.c[VG_AC_NO_WATCH] + s.c[VG_AC_THREAD_FULL];
  if (vg_config.stats) {
    fprintf(stderr, "vigil: atomic regions (%s mode, %s)\n", vg_atomic_config.mode == VG_AM_PREVENT ? "prevent"
                    : vg_atomic_config.mode == VG_AM_DETECT ? "detect"
                    : vg_atomic_config.mode == VG_AM_FIND ? "find" : "train",
            vg_atomic_config.detector == VG_AD_CHECKS ? "access checks"
            : vg_atomic_config.detector == VG_AD_WATCHPOINTS ? "watchpoints" : "begins only");
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
      fprintf(stderr, "  %-28s %12llu\n", fields[i].name,
              (unsigned long long)field(&s, fields[i].which));
  }
  if (vg_config.stats || vg_config.on_failure == VG_COUNT) {
    uint64_t v = s.c[VG_AC_VIOLATIONS], rep = s.c[VG_AC_REPEATED_REPORTS];
    if (vg_config.on_failure == VG_COUNT || v)
      fprintf(stderr, "vigil: %llu atomicity violation%s (%llu prevented)", (unsigned long long)v,
              v == 1 ? "" : "s", (unsigned long long)s.c[VG_AC_PREVENTED]);
    if ((vg_config.on_failure == VG_COUNT || v) && rep)
      fprintf(stderr, "; %llu %s a repeat of one already reported, not shown again "
                      "(VIGIL_ATOMIC_DEDUP=0 shows %s)", (unsigned long long)rep,
              rep == 1 ? "was" : "were", rep == 1 ? "it" : "them");
    if (vg_config.on_failure == VG_COUNT || v)
      fprintf(stderr, "\n");
    if (unmon)
      fprintf(stderr, "vigil: %llu atomic region%s not monitored (no free slot, debug "
                      "register or per-thread entry)\n", (unsigned long long)unmon,
              unmon == 1 ? "" : "s");
  }
}
