/*
 * vigil/stream.h — the event stream's producer side (docs/stream-format.md).
 *
 * A traced program writes each event into a buffer of its own thread with
 * no lock and no system call; one consumer thread ships full (and, every
 * few milliseconds, partly filled) buffers to VIGIL_STREAM.  The inline
 * producer below is what `vigil-cc --vigil-trace` emits at every traced
 * entry and return, and what C code may call itself.
 *
 * Record layout in a buffer and in a batch's `ev` field (64-bit words):
 *   word 0   event id (bits 0-31) | argument words (bits 32-39)
 *   word 1   timestamp in ticks (TSC where invariant, else nanoseconds)
 *   word 2.. the argument words
 */
#ifndef VIGIL_STREAM_H
#define VIGIL_STREAM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define VIGIL_STREAM_FORMAT 1
#define VIGIL_STREAM_MAX_ARGS 16 /* argument words per record */

/* The producer's part of a thread's buffer; the rest is the runtime's
 * (runtime/stream_buffer.c).  `pos` is stored with release order after the
 * record is written, so that the consumer may ship [chunk, pos) while the
 * thread goes on writing. */
struct vigil_stream_cursor {
  uint64_t *pos; /* next word to write                    */
  uint64_t *end; /* end of the chunk being filled          */
};
_Static_assert(offsetof(struct vigil_stream_cursor, pos) == 0 &&
                   offsetof(struct vigil_stream_cursor, end) == 8,
               "the pass emits these offsets");

/* Non-zero once VIGIL_STREAM names a destination (set before main). */
extern uint8_t __vigil_stream_on;
/* The calling thread's cursor, or null before its first event. */
extern _Thread_local struct vigil_stream_cursor *__vigil_stream_cursor;
/* Slow path: a chunk with room for `words` words (registering the thread,
 * publishing a full chunk, waiting in lossless mode), or null when the
 * event is lost (discard mode; counted) or streaming is off. */
uint64_t *__vigil_stream_reserve(uint32_t words);

/* Declares an event (once per name and kind; thread-safe) and returns its
 * id.  kind: "entry", "return", "event", "verdict", ...; types: one of
 * "i64", "u64", "ptr" per argument word. */
uint32_t vigil_stream_declare(const char *name, const char *kind, unsigned nargs,
                              const char *const *types);
/* The same, naming each argument word (`names` may be null). */
uint32_t vigil_stream_declare_named(const char *name, const char *kind, unsigned nargs,
                                    const char *const *types, const char *const *names);
/* Ships every event produced so far and waits (at most
 * VIGIL_STREAM_LINGER_MS) for the destination to acknowledge it; the
 * stream goes on. */
void vigil_stream_flush(void);

static inline uint64_t vigil_stream_ticks(void) {
#if defined(__x86_64__) || defined(__i386__)
  return __builtin_ia32_rdtsc();
#else
  return __builtin_readcyclecounter();
#endif
}

/* Records one event: the inline producer. */
static inline void vigil_stream_emit(uint32_t id, unsigned nargs, const uint64_t *args) {
  if (__builtin_expect(!__vigil_stream_on, 1))
    return;
  struct vigil_stream_cursor *c = __vigil_stream_cursor;
  uint64_t *p = c ? c->pos : 0;
  if (__builtin_expect(!c || p + 2 + nargs > c->end, 0)) {
    if (!(p = __vigil_stream_reserve(2 + nargs)))
      return;
    c = __vigil_stream_cursor;
  }
  p[0] = id | (uint64_t)nargs << 32;
  p[1] = vigil_stream_ticks();
  for (unsigned i = 0; i < nargs; i++)
    p[2 + i] = args[i];
  __atomic_store_n(&c->pos, p + 2 + nargs, __ATOMIC_RELEASE);
}

#ifdef __cplusplus
}
#endif

#endif /* VIGIL_STREAM_H */
