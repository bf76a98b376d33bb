/*
 * atomic_config.c — VIGIL_ATOMIC_* when the program registers its atomic
 * regions, the AR whitelist, and train mode's whitelist at exit.
 *
 * As everywhere in vigil (config.c), a bad value is said on stderr and the
 * default used: a configuration mistake never stops the program being
 * verified.
 *
 * The whitelist is resolved once, at registration, into one byte per AR:
 * a whitelisted begin costs that byte test and nothing else, as the
 * paper's whitelist "simply returns".  Entries name what a developer sees
 * in a report: the AR's first access as `file:line` (a file may be given
 * by a path suffix: `dir/a.c:12` or `a.c:12` match `/src/dir/a.c`), or a
 * variable name (every AR on that variable: the paper's synchronisation
 * variables, §3.4).  The paper re-reads the file periodically; vigil reads
 * it at start only (a long-running program is restarted to pick it up).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic_internal.h"
#include "internal.h"

/* Find mode's pause rate, argued: the paper pauses every begin for 20 ms,
 * which caps a thread at 50 begins a second: fine for its kernel-crossing
 * prototype, but an AR in an inner loop would then stall the program for
 * hours.  What a pause buys is a wider window for one instance of an AR;
 * the first begin of every AR always pauses (so every AR gets its chance
 * once, however rare), and later begins pause with probability 1/100: an
 * AR run a million times is still paused ~10000 times, while a thread's
 * expected slowdown stays near pause x rate = 0.2 ms per begin.
 * VIGIL_ATOMIC_PAUSE_RATE=1 is the paper's behaviour. */
#define DEFAULT_PAUSE_RATE 0.01
/* ... but at a million begins a second, that rate alone keeps a thread
 * paused most of the time, and a pause inside an AR holds every other
 * thread that reads the variable: measured on mysql-3596/fixed.c (2 ms at
 * 0.002), the monitor thread, held, ran slower, the connection threads
 * looped more, paused more, and a 0.25 s run took 3-30 s.
 * VIGIL_ATOMIC_PAUSE_SHARE=0.25 stops later pauses while a thread has been
 * paused for more than a quarter of its time since its first pause
 * (counted as pauses_skipped).  It is not the default: the pauses it skips
 * are the ones that find bugs in short runs (mysql-3596's find step went
 * from a report in 1 of 5-15 runs to 0 of 20 with 0.25, 1 of 10 with 0.5),
 * so bounding the slowdown is the user's choice. */
#define DEFAULT_PAUSE_SHARE 1.0

struct vg_atomic_config vg_atomic_config = {.mode = VG_AM_PREVENT,
                                            .detector = VG_AD_CHECKS,
                                            .timeout_ms = 10,
                                            .runnable_ms = 200,
                                            .blocked_ms = 1,
                                            .pause_ms = 20,
                                            .pause_rate = DEFAULT_PAUSE_RATE,
                                            .pause_share = DEFAULT_PAUSE_SHARE};
uint8_t *vg_ar_skip;
uint8_t *vg_ar_paused;
uint32_t vg_ar_n, vg_ar_n_ends, vg_ar_n_sites;
int vg_atomic_dedup = 1;

/* train mode: per AR, the patterns seen (bit per pattern index) and count */
struct note {
  _Atomic uint64_t count;
  _Atomic uint8_t patterns;
};
static struct note *notes;
static const struct vigil_atomic_program *prog;

static const char *const mode_names[] = {"prevent", "detect", "find", "train"};
static const char *const detector_names[] = {"checks", "watchpoints", "begin"};

static int pick(const char *var, const char *const *names, int n, int dflt,
                const char *expect) {
  const char *v = getenv(var);
  if (!v || !*v)
    return dflt;
  for (int i = 0; i < n; i++)
    if (!strcmp(v, names[i]))
      return i;
  vg_bad_value(var, v, expect);
  return dflt;
}

/* A fraction from 0 to 1 in environment variable `var`, else dflt. */
static double fraction(const char *var, double dflt, const char *expect) {
  const char *v = getenv(var);
  if (!v || !*v)
    return dflt;
  char *end;
  errno = 0;
  double r = strtod(v, &end);
  if (end == v || *end || errno || !(r >= 0 && r <= 1)) {
    vg_bad_value(var, v, expect);
    return dflt;
  }
  return r;
}

/* The detector: asked for, or the best the build and machine allow; the
 * fallback is said once, with the reason. */
static int detector(void) {
  int has_checks = (prog->flags & VIGIL_ATOMIC_CHECKS) != 0;
  int want = pick("VIGIL_ATOMIC_DETECTOR", detector_names, 3, -1,
                  "checks, watchpoints or begin");
  if (want == VG_AD_BEGIN)
    return VG_AD_BEGIN;
  if (want == VG_AD_CHECKS && !has_checks)
    fprintf(stderr, "vigil: VIGIL_ATOMIC_DETECTOR=checks: the program was built without "
                    "access checks (vigil-cc --vigil-atomic-checks); trying watchpoints\n");
  if (want == -1 || want == VG_AD_CHECKS) {
    if (has_checks)
      return VG_AD_CHECKS;
  }
  if (vg_atomic_watch_init() == 0)
    return VG_AD_WATCHPOINTS;
  if (want == VG_AD_WATCHPOINTS && has_checks) {
    fprintf(stderr, "vigil: atomic regions: hardware watchpoints are not available here; "
                    "using the access checks\n");
    return VG_AD_CHECKS;
  }
  fprintf(stderr, "vigil: atomic regions: %s; only a begin of another thread's atomic "
                  "region is seen as a remote access (VIGIL_ATOMIC_DETECTOR=begin)\n",
          has_checks ? "hardware watchpoints are not available here"
                     : "no access checks were built in and hardware watchpoints are not "
                       "available here");
  return VG_AD_BEGIN;
}

/* ---- the whitelist -------------------------------------------------------------- */

static int same_file(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  if (la == lb)
    return !strcmp(a, b);
  const char *longer = la > lb ? a : b, *shorter = la > lb ? b : a;
  size_t d = la > lb ? la - lb : lb - la;
  return longer[d - 1] == '/' && !strcmp(longer + d, shorter);
}

/* One entry without its comment: "file:line" or a variable name.  Returns
 * how many ARs it names (whitelisted before or now). */
static unsigned apply_entry(char *e) {
  char *colon = strrchr(e, ':');
  unsigned long line = 0;
  int is_loc = 0;
  if (colon && colon[1]) {
    char *end;
    line = strtoul(colon + 1, &end, 10);
    is_loc = !*end;
  }
  if (is_loc)
    *colon = 0;
  unsigned n = 0;
  for (uint32_t i = 0; i < prog->n_ars; i++) {
    const struct vigil_ar *a = &prog->ars[i];
    int hit = is_loc ? a->first.line == line && a->first.file && same_file(a->first.file, e)
                     : a->var < prog->n_vars && prog->vars[a->var].name &&
                           !strcmp(prog->vars[a->var].name, e);
    if (hit) {
      vg_ar_skip[i] = 1;
      n++;
    }
  }
  if (is_loc)
    *colon = ':'; /* the caller may quote the entry */
  return n;
}

static char *trim(char *s) {
  char *h = strchr(s, '#');
  if (h)
    *h = 0;
  while (isspace((unsigned char)*s))
    s++;
  size_t n = strlen(s);
  while (n && isspace((unsigned char)s[n - 1]))
    s[--n] = 0;
  return s;
}

static void load_whitelist(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) {
    /* train mode creates it; otherwise a missing file is worth saying */
    if (errno != ENOENT || vg_atomic_config.mode != VG_AM_TRAIN)
      fprintf(stderr, "vigil: cannot read VIGIL_ATOMIC_WHITELIST=%s (%s); no atomic region "
                      "is whitelisted\n", path, strerror(errno));
    return;
  }
  char *line = NULL;
  size_t cap = 0;
  /* An entry that names no region is said (a typo, or a whitelist trained
   * on another build), never fatal: the program runs on. */
  for (unsigned long no = 1; getline(&line, &cap, f) >= 0; no++) {
    char *e = trim(line);
    if (*e && !apply_entry(e))
      fprintf(stderr, "vigil: %s:%lu: `%s` names no atomic region of this program "
                      "(a variable, or the file:line of a region's first access)\n", path, no, e);
  }
  free(line);
  fclose(f);
}

int vg_atomic_configure(const struct vigil_atomic_program *p) {
  prog = p;
  struct vg_atomic_config *c = &vg_atomic_config;
  c->mode = pick("VIGIL_ATOMIC_MODE", mode_names, 4, VG_AM_PREVENT,
                 "prevent, detect, find or train");
  c->timeout_ms = vg_env_number("VIGIL_ATOMIC_TIMEOUT_MS", 1, 60000, 10);
  c->runnable_ms = vg_env_number("VIGIL_ATOMIC_RUNNABLE_MS", 0, 60000, 200);
  c->blocked_ms = vg_env_number("VIGIL_ATOMIC_BLOCKED_MS", 0, 60000, 1);
  c->pause_ms = vg_env_number("VIGIL_ATOMIC_PAUSE_MS", 0, 10000, 20);
  c->pause_rate = fraction("VIGIL_ATOMIC_PAUSE_RATE", DEFAULT_PAUSE_RATE,
                           "a probability from 0 to 1, e.g. 0.01");
  c->pause_share = fraction("VIGIL_ATOMIC_PAUSE_SHARE", DEFAULT_PAUSE_SHARE,
                            "a share of a thread's time from 0 to 1, e.g. 0.25");
  vg_atomic_dedup = (int)vg_env_number("VIGIL_ATOMIC_DEDUP", 0, 1, 1);
  const char *w = getenv("VIGIL_ATOMIC_WHITELIST");
  c->whitelist = w && *w ? w : NULL;
  if (c->mode == VG_AM_TRAIN && !c->whitelist) {
    fprintf(stderr, "vigil: VIGIL_ATOMIC_MODE=train writes its findings to "
                    "VIGIL_ATOMIC_WHITELIST=FILE, which is not set; detecting only\n");
    c->mode = VG_AM_DETECT;
  }
  c->detector = detector();
  size_t n = p->n_ars ? p->n_ars : 1;
  vg_ar_skip = calloc(n, 1);
  vg_ar_paused = calloc(n, 1);
  notes = c->mode == VG_AM_TRAIN ? calloc(n, sizeof *notes) : NULL;
  if (!vg_ar_skip || !vg_ar_paused || (c->mode == VG_AM_TRAIN && !notes)) {
    fprintf(stderr, "vigil: out of memory for the atomic-region tables; atomicity is not "
                    "checked\n");
    return -1;
  }
  if (c->whitelist)
    load_whitelist(c->whitelist);
  atexit(vg_atomic_stats_at_exit);
  return 0;
}

const char *vg_atomic_mode_name(void);
const char *vg_atomic_mode_name(void) { return mode_names[vg_atomic_config.mode]; }
const char *vg_atomic_detector_name(void);
const char *vg_atomic_detector_name(void) { return detector_names[vg_atomic_config.detector]; }

/* ---- train mode ----------------------------------------------------------------------- */

static const char *const patterns[] = {"RWR", "WWR", "WRW", "RWW"};

void vg_atomic_train_note(uint32_t ar, const char *pattern) {
  if (!notes || ar >= prog->n_ars)
    return;
  for (unsigned i = 0; i < 4; i++)
    if (!strcmp(pattern, patterns[i]))
      atomic_fetch_or(&notes[ar].patterns, (uint8_t)(1u << i));
  atomic_fetch_add(&notes[ar].count, 1);
}

/* The key of a line (what makes two lines duplicates): its entry. */
static int has_key(char **keys, size_t n, const char *k) {
  for (size_t i = 0; i < n; i++)
    if (!strcmp(keys[i], k))
      return 1;
  return 0;
}

/* Existing lines, verbatim, and their keys ("" for blank and comment
 * lines).  Stops early when memory is short: what was read is kept. */
static size_t read_lines(const char *path, char ***lines, char ***keys) {
  size_t n = 0, cap = 0;
  FILE *f = fopen(path, "r");
  char *line = NULL;
  size_t lcap = 0;
  ssize_t len;
  while (f && (len = getline(&line, &lcap, f)) >= 0) {
    if (len && line[len - 1] == '\n')
      line[len - 1] = 0;
    if (n == cap) {
      size_t ncap = cap ? cap * 2 : 64;
      char **nl = realloc(*lines, ncap * sizeof *nl);
      if (nl)
        *lines = nl;
      char **nk = nl ? realloc(*keys, ncap * sizeof *nk) : NULL;
      if (nk)
        *keys = nk;
      if (!nl || !nk)
        break;
      cap = ncap;
    }
    char *tmp = strdup(line);
    char *key = tmp ? strdup(trim(tmp)) : NULL;
    char *copy = strdup(line);
    free(tmp);
    if (!key || !copy) {
      free(key), free(copy);
      break;
    }
    (*lines)[n] = copy;
    (*keys)[n++] = key;
  }
  free(line);
  if (f)
    fclose(f);
  return n;
}

/* Another AR before `ar` with a violation and the same first access
 * (inlined copies of one function): it has the line already. */
static int earlier_same(uint32_t ar) {
  const struct vigil_ar *a = &prog->ars[ar];
  for (uint32_t i = 0; i < ar; i++) {
    const struct vigil_ar *b = &prog->ars[i];
    if (atomic_load(&notes[i].count) && b->first.line == a->first.line &&
        !strcmp(b->first.file ? b->first.file : "", a->first.file ? a->first.file : ""))
      return 1;
  }
  return 0;
}

/* At exit in train mode: VIGIL_ATOMIC_WHITELIST gets one line per AR that
 * had a violation in this (correct) run, `file:line  # variable patterns
 * count`, after the lines it had, without duplicates; written to a
 * temporary file and renamed, so a reader never sees half of it. */
void vg_atomic_train_write(void) {
  const char *path = vg_atomic_config.whitelist;
  if (!notes || !path)
    return;
  char **lines = NULL, **keys = NULL;
  size_t n = read_lines(path, &lines, &keys), added = 0;
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "w");
  if (!f) {
    fprintf(stderr, "vigil: cannot write %s (%s); the training run's whitelist is lost\n", tmp,
            strerror(errno));
  } else {
    for (size_t i = 0; i < n; i++)
      fprintf(f, "%s\n", lines[i]);
    for (uint32_t ar = 0; ar < prog->n_ars; ar++) {
      uint64_t count = atomic_load(&notes[ar].count);
      const struct vigil_ar *a = &prog->ars[ar];
      char key[4096];
      snprintf(key, sizeof key, "%s:%u", a->first.file ? a->first.file : "", a->first.line);
      if (!count || has_key(keys, n, key) || earlier_same(ar))
        continue;
      const char *var = a->var < prog->n_vars && prog->vars[a->var].name
                            ? prog->vars[a->var].name : "?";
      fprintf(f, "%s  # %s ", key, var);
      unsigned pats = atomic_load(&notes[ar].patterns);
      for (unsigned k = 0, first = 1; k < 4; k++)
        if (pats & (1u << k)) {
          fprintf(f, "%s%s", first ? "" : ",", patterns[k]);
          first = 0;
        }
      fprintf(f, " %llu\n", (unsigned long long)count);
      added++;
    }
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
      fprintf(stderr, "vigil: cannot write %s (%s)\n", path, strerror(errno));
      unlink(tmp);
    } else {
      fprintf(stderr, "vigil: atomic regions: training added %zu entr%s to %s\n", added,
              added == 1 ? "y" : "ies", path);
    }
  }
  for (size_t i = 0; i < n; i++)
    free(lines[i]), free(keys[i]);
  free(lines), free(keys);
}
