/*
 * atomic_insn_find.c — the instruction that ends at a trap's PC
 * (vg_insn_before) and its effective address (vg_insn_ea), for the
 * watchpoint backend.  atomic_insn.c says why this is decoded at run time
 * rather than read from a table made at link time.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>

#include "atomic_insn.h"

/* A linear decode from a symbol further than this from the PC is not
 * attempted (a stripped region; the backward probe is tried instead). */
#define MAX_SWEEP (256u * 1024u)

/* Verified answers: pc -> start, direct-mapped.  A racy overwrite is
 * harmless: an entry is used only after the instruction at `start` decodes
 * to one ending exactly at pc, and the pair is one 16-byte slot written
 * start first, pc last. */
#define CACHE 512
static struct {
  _Atomic uintptr_t pc, start;
} cache[CACHE];

static int decode_at(uintptr_t at, uintptr_t pc, struct vg_insn *out) {
  return vg_insn_decode((const uint8_t *)at, pc - at, out) == 0 && at + out->len == pc;
}

/* Forward from the symbol's start to pc. */
static int sweep(uintptr_t from, uintptr_t pc, uintptr_t *start, struct vg_insn *out) {
  uintptr_t at = from;
  while (at < pc) {
    if (vg_insn_decode((const uint8_t *)at, pc - at, out) != 0)
      return -1;
    if (at + out->len == pc) {
      *start = at;
      return 0;
    }
    at += out->len;
  }
  return -1; /* pc is a symbol's start: a call or jump through memory got here */
}

/* Whether the page before pc's is mapped (a backward probe may read it). */
static int prev_page_mapped(uintptr_t pc) {
  unsigned char v;
  uintptr_t page = (pc & ~(uintptr_t)4095) - 4096;
  return mincore((void *)page, 4096, &v) == 0;
}

/* No usable symbol (a static function: dladdr only knows exported ones):
 * x86 code re-synchronises within a few instructions, so linear sweeps
 * from each of the 64 bytes before pc are run, and the instruction ending
 * at pc that most of them reach wins (it must access memory).  Reads stay
 * in pc's page unless the previous page is mapped. */
#define BACK 64
static int probe(uintptr_t pc, uintptr_t *start, struct vg_insn *out) {
  uintptr_t lo = pc - BACK;
  if ((lo & ~(uintptr_t)4095) != (pc & ~(uintptr_t)4095) && !prev_page_mapped(pc))
    lo = pc & ~(uintptr_t)4095;
  uintptr_t cand[BACK];
  unsigned votes[BACK], n = 0;
  for (uintptr_t from = lo; from < pc; from++) {
    uintptr_t s;
    struct vg_insn in;
    if (sweep(from, pc, &s, &in) != 0 || !in.has_mem)
      continue;
    unsigned j = 0;
    while (j < n && cand[j] != s)
      j++;
    if (j == n)
      cand[n] = s, votes[n++] = 0;
    votes[j]++;
  }
  unsigned best = 0, second = 0, bi = 0;
  for (unsigned j = 0; j < n; j++)
    if (votes[j] > best)
      second = best, best = votes[j], bi = j;
    else if (votes[j] > second)
      second = votes[j];
  if (!best || best <= second)
    return -1;
  *start = cand[bi];
  return decode_at(cand[bi], pc, out) ? 0 : -1;
}

int vg_insn_before(uintptr_t pc, uintptr_t *start, struct vg_insn *out) {
  unsigned h = (unsigned)(pc ^ (pc >> 9)) % CACHE;
  if (atomic_load_explicit(&cache[h].pc, memory_order_acquire) == pc) {
    uintptr_t s = atomic_load_explicit(&cache[h].start, memory_order_relaxed);
    if (s < pc && decode_at(s, pc, out)) {
      *start = s;
      return 0;
    }
  }
  Dl_info info = {0};
  int r = -1;
  if (dladdr((void *)pc, &info) && info.dli_saddr && (uintptr_t)info.dli_saddr < pc &&
      pc - (uintptr_t)info.dli_saddr <= MAX_SWEEP)
    r = sweep((uintptr_t)info.dli_saddr, pc, start, out);
  if (r != 0 && !(info.dli_saddr && (uintptr_t)info.dli_saddr == pc))
    r = probe(pc, start, out);
  if (r == 0) {
    atomic_store_explicit(&cache[h].pc, 0, memory_order_relaxed);
    atomic_store_explicit(&cache[h].start, *start, memory_order_relaxed);
    atomic_store_explicit(&cache[h].pc, pc, memory_order_release);
  }
  return r;
}

int vg_insn_ea(const struct vg_insn *in, const uint64_t regs[16], uintptr_t next, uintptr_t *ea) {
  if (!in->has_mem || in->seg || (in->base < 0 && in->index < 0 && !in->rip_rel && !in->disp))
    return -1; /* implicit operand (string op, moffs) or fs/gs */
  uintptr_t a = in->rip_rel ? next : 0;
  if (in->base >= 0)
    a += regs[in->base];
  if (in->index >= 0)
    a += regs[in->index] * in->scale;
  *ea = a + (intptr_t)in->disp;
  return 0;
}
