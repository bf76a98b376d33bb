/*
 * parse.c — VIGIL_* values: sizes and bounded numbers.  A bad value is
 * reported on stderr and the caller keeps its default: configuration
 * mistakes never stop the program being verified.  No constructor here,
 * so the stream's writer (vigil record's loader) can link it alone.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

void vg_bad_value(const char *var, const char *val, const char *expect) {
  fprintf(stderr, "vigil: ignoring %s=%s (expected %s)\n", var, val, expect);
}

/* Sizes are capped at 2^48 bytes or entries: far above any real limit,
 * and every later doubling or shift stays clear of overflow (the fuzzer
 * found a loop that never ended at 2^63). */
#define VG_SIZE_MAX (1ull << 48)

int vg_parse_size(const char *var, const char *v, size_t *out) {
  char *end;
  errno = 0;
  unsigned long long n = strtoull(v, &end, 10);
  if (end == v || n == 0 || *v == '-' || *v == '+' || errno == ERANGE) {
    vg_bad_value(var, v, "a positive number");
    return -1;
  }
  unsigned shift = 0;
  switch (*end) {
  case 'k': case 'K': shift = 10; end++; break;
  case 'm': case 'M': shift = 20; end++; break;
  case 'g': case 'G': shift = 30; end++; break;
  }
  if (*end) {
    vg_bad_value(var, v, "a positive number with an optional K, M or G suffix");
    return -1;
  }
  if (n > (VG_SIZE_MAX >> shift)) {
    vg_bad_value(var, v, "a size up to 256T");
    return -1;
  }
  *out = (size_t)(n << shift);
  return 0;
}

long vg_env_number(const char *var, long lo, long hi, long dflt) {
  const char *v = getenv(var);
  if (!v || !*v)
    return dflt;
  char *end;
  errno = 0;
  long n = strtol(v, &end, 10);
  if (end == v || *end || errno || n < lo || n > hi) {
    fprintf(stderr, "vigil: ignoring %s=%s (expected a number from %ld to %ld)\n", var, v,
            lo, hi);
    return dflt;
  }
  return n;
}
