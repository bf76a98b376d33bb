/*
 * atomic_insn.c — an x86-64 instruction length decoder and classifier for
 * the watchpoint backend (atomic_insn.h), written from the Intel SDM vol. 2
 * (chapter 2: prefixes, REX, VEX/EVEX, ModRM/SIB; appendix A: opcode maps).
 *
 * Why decode at run time rather than pre-process the binary (the paper's
 * choice, §3.3; here a post-link llvm-objdump pass in `vigil cc` writing a
 * table of instruction boundaries into a section or a side file):
 *  - the trap needs more than boundaries: whether the access was a read or
 *    a write (x86 DR6 does not say, and a read/write watchpoint traps on
 *    both), whether the instruction has side effects that forbid a rewind,
 *    and whether a load's destination register is also in its address.
 *    A boundary table would need a decoder anyway, or an objdump text
 *    parser encoding the same knowledge;
 *  - remote accesses also come from code no vigil build step saw: libc
 *    (memcpy of a shared buffer), other shared objects, code built without
 *    --vigil-atomic.  dladdr finds a symbol there too;
 *  - no extra link step, no section to keep in sync with the binary, no
 *    file next to it to lose when the binary is copied.
 * The cost is paid only on a trap (already ~20 us): a linear decode from
 * the enclosing symbol's start, bounded, then cached.  Instruction starts
 * are found by decoding forward from a symbol (vigil links programs with
 * --export-dynamic, so dladdr knows every global function; a static one
 * is decoded through from the global before it: x86-64 compilers put jump
 * tables in .rodata, and padding is int3/nop, so a linear sweep stays in
 * step, as objdump's does).  The decode must land exactly on the PC, or no
 * answer is given.  Without a symbol, the 15 possible starts before the PC
 * are tried and a unique memory-accessing candidate is taken.
 *
 * The decoder covers what compilers emit for user code: the one-byte map,
 * 0F, 0F38, 0F3A, VEX and EVEX lengths.  The classification is deliberately
 * narrow: an instruction is re-executable only when its sole effects are
 * the memory access and a register or flags it does not read (see
 * classify()); everything else (push/pop/call, xchg/xadd/cmpxchg, string
 * ops, adc/sbb, op reg,mem) is reported as not preventable.
 */
#define _GNU_SOURCE
#include "atomic_insn.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <string.h>

#include "vigil/atomic.h"

/* ---- the one-byte map ----------------------------------------------------- */

/* Per opcode: M has ModRM, B imm8, Z imm16/32, W imm16, X invalid in 64-bit
 * mode, P prefix (handled before the table), V imm64/32/16 (mov r, imm),
 * O moffs, S special-cased. */
enum { M = 1, B = 2, Z = 4, W = 8, X = 16, P = 32, V = 64, O = 128 };
static const uint8_t map1[256] = {
    /* 00 */ M, M, M, M, B, Z, X, X, M, M, M, M, B, Z, X, 0,
    /* 10 */ M, M, M, M, B, Z, X, X, M, M, M, M, B, Z, X, X,
    /* 20 */ M, M, M, M, B, Z, P, X, M, M, M, M, B, Z, P, X,
    /* 30 */ M, M, M, M, B, Z, P, X, M, M, M, M, B, Z, P, X,
    /* 40 */ P, P, P, P, P, P, P, P, P, P, P, P, P, P, P, P,
    /* 50 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    /* 60 */ X, X, X, M, P, P, P, P, Z, M | Z, B, M | B, 0, 0, 0, 0,
    /* 70 */ B, B, B, B, B, B, B, B, B, B, B, B, B, B, B, B,
    /* 80 */ M | B, M | Z, X, M | B, M, M, M, M, M, M, M, M, M, M, M, M,
    /* 90 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, X, 0, 0, 0, 0, 0,
    /* A0 */ O, O, O, O, 0, 0, 0, 0, B, Z, 0, 0, 0, 0, 0, 0,
    /* B0 */ B, B, B, B, B, B, B, B, V, V, V, V, V, V, V, V,
    /* C0 */ M | B, M | B, W, 0, X, X, M | B, M | Z, W | B, 0, W, 0, 0, B, X, 0,
    /* D0 */ M, M, M, M, X, X, X, 0, M, M, M, M, M, M, M, M,
    /* E0 */ B, B, B, B, B, B, B, B, Z, Z, X, B, 0, 0, 0, 0,
    /* F0 */ P, 0, P, P, 0, 0, M, M, 0, 0, 0, 0, 0, 0, M, M,
};

/* 0F map: ModRM presence (1 bit per opcode) and imm8. */
static int map2_modrm(uint8_t op) {
  switch (op) {
  case 0x04: case 0x05: case 0x06: case 0x07: case 0x08: case 0x09: case 0x0A:
  case 0x0B: case 0x0C: case 0x0E: case 0x30: case 0x31: case 0x32: case 0x33:
  case 0x34: case 0x35: case 0x36: case 0x37: case 0x77: case 0xA0: case 0xA1:
  case 0xA2: case 0xA8: case 0xA9: case 0xAA:
    return 0;
  }
  if (op >= 0x80 && op <= 0x8F) /* jcc rel32 */
    return 0;
  if (op >= 0xC8 && op <= 0xCF) /* bswap */
    return 0;
  return 1;
}
static int map2_imm(uint8_t op) {
  if (op >= 0x80 && op <= 0x8F)
    return 4;
  switch (op) {
  case 0x70: case 0x71: case 0x72: case 0x73: case 0xA4: case 0xAC: case 0xBA:
  case 0xC2: case 0xC4: case 0xC5: case 0xC6: case 0x0F: /* 3DNow! suffix */
    return 1;
  }
  return 0;
}

/* ---- ModRM / SIB ------------------------------------------------------------ */

/* Reads ModRM (and SIB, displacement) at p; fills the operand fields of
 * out; returns the bytes used, or -1 past max. */
static int modrm(const uint8_t *p, size_t max, unsigned rex, struct vg_insn *out) {
  if (max < 1)
    return -1;
  unsigned mod = p[0] >> 6, rm = p[0] & 7;
  int n = 1;
  out->base = out->index = -1;
  out->scale = 1;
  out->disp = 0;
  if (mod == 3)
    return 1;
  out->has_mem = 1;
  if (rm == 4) {
    if (max < 2)
      return -1;
    unsigned sib = p[1];
    n = 2;
    out->scale = (uint8_t)(1u << (sib >> 6));
    unsigned idx = ((sib >> 3) & 7) | ((rex & 2) << 2);
    out->index = idx == 4 ? -1 : (int8_t)idx;
    unsigned b = sib & 7;
    if (b == 5 && mod == 0) {
      out->base = -1;
      mod = 2; /* disp32, no base */
    } else {
      out->base = (int8_t)(b | ((rex & 1) << 3));
    }
  } else if (rm == 5 && mod == 0) {
    out->rip_rel = 1;
    mod = 2;
  } else {
    out->base = (int8_t)(rm | ((rex & 1) << 3));
  }
  int dlen = mod == 1 ? 1 : mod == 2 ? 4 : 0;
  if ((size_t)(n + dlen) > max)
    return -1;
  if (dlen == 1)
    out->disp = (int8_t)p[n];
  else if (dlen == 4) {
    int32_t d;
    memcpy(&d, p + n, 4);
    out->disp = d;
  }
  return n + dlen;
}

/* ---- classification ------------------------------------------------------------ */

struct ctx {
  unsigned rex, op, map, reg, opsz66, rep, vex;
  int has_modrm;
};

static void set(struct vg_insn *o, unsigned cls, unsigned kind, int reexec) {
  o->cls = (uint8_t)cls;
  o->kind = (uint8_t)kind;
  o->reexec = (uint8_t)reexec;
}

/* The general register a one-byte-map or 0F load writes (REX.R; AH..BH
 * without REX are registers 0-3). */
static int8_t load_dest(const struct ctx *c, int byte_op) {
  unsigned r = c->reg | ((c->rex & 4) << 1);
  if (byte_op && !c->rex && r >= 4 && r < 8)
    r -= 4;
  return (int8_t)r;
}

static unsigned opsize(const struct ctx *c, int byte_op) {
  return byte_op ? 1 : (c->rex & 8) ? 8 : c->opsz66 ? 2 : 4;
}

static void classify_alu(const struct ctx *c, struct vg_insn *o, unsigned aluop, int mem_dest) {
  if (aluop == 7) /* cmp */
    set(o, VG_INSN_READ, VIGIL_AR_READ, 1);
  else if (!mem_dest) /* op reg, mem: reads the register it writes */
    set(o, VG_INSN_OTHER, VIGIL_AR_READ, 0);
  else if (aluop == 2 || aluop == 3) /* adc/sbb read the CF they change */
    set(o, VG_INSN_RMW, VIGIL_AR_READ | VIGIL_AR_WRITE, 0);
  else
    set(o, VG_INSN_RMW, VIGIL_AR_READ | VIGIL_AR_WRITE, 1);
  (void)c;
}

static void classify_map1(const struct ctx *c, struct vg_insn *o) {
  unsigned op = c->op, reg = c->reg;
  int byte_op = !(op & 1);
  o->opsize = (uint8_t)opsize(c, byte_op);
  if (op < 0x40 && (op & 7) < 4) {
    classify_alu(c, o, op >> 3, !(op & 2));
    return;
  }
  switch (op) {
  case 0x88: case 0x89: set(o, VG_INSN_STORE, VIGIL_AR_WRITE, 1); return;
  case 0xC6: case 0xC7: if (reg == 0) set(o, VG_INSN_STORE, VIGIL_AR_WRITE, 1); return;
  case 0x8A: case 0x8B: case 0x63: case 0x69: case 0x6B:
    o->opsize = (uint8_t)(op == 0x63 ? 4 : opsize(c, op == 0x8A));
    o->dest = load_dest(c, op == 0x8A);
    set(o, VG_INSN_LOAD, VIGIL_AR_READ, 1);
    return;
  case 0x80: case 0x81: case 0x83: classify_alu(c, o, reg, 1); return;
  case 0x84: case 0x85: set(o, VG_INSN_READ, VIGIL_AR_READ, 1); return;
  case 0x86: case 0x87: set(o, VG_INSN_OTHER, VIGIL_AR_READ | VIGIL_AR_WRITE, 0); return;
  case 0x8F: set(o, VG_INSN_OTHER, VIGIL_AR_WRITE, 0); return;
  case 0xC0: case 0xC1: case 0xD0: case 0xD1: case 0xD2: case 0xD3:
    set(o, VG_INSN_RMW, VIGIL_AR_READ | VIGIL_AR_WRITE, reg != 2 && reg != 3);
    return;
  case 0xF6: case 0xF7:
    if (reg < 2)
      set(o, VG_INSN_READ, VIGIL_AR_READ, 1);
    else if (reg < 4) /* not, neg */
      set(o, VG_INSN_RMW, VIGIL_AR_READ | VIGIL_AR_WRITE, 1);
    else /* mul/div read rax/rdx they write */
      set(o, VG_INSN_OTHER, VIGIL_AR_READ, 0);
    return;
  case 0xFE: case 0xFF:
    if (reg < 2)
      set(o, VG_INSN_RMW, VIGIL_AR_READ | VIGIL_AR_WRITE, 1);
    else /* call, jmp, push through memory */
      set(o, VG_INSN_OTHER, VIGIL_AR_READ, 0);
    return;
  case 0xA0: case 0xA1: o->dest = 0; set(o, VG_INSN_LOAD, VIGIL_AR_READ, 1); return;
  case 0xA2: case 0xA3: set(o, VG_INSN_STORE, VIGIL_AR_WRITE, 1); return;
  case 0xA4: case 0xA5: set(o, VG_INSN_OTHER, VIGIL_AR_READ | VIGIL_AR_WRITE, 0); return;
  case 0xAA: case 0xAB: set(o, VG_INSN_OTHER, VIGIL_AR_WRITE, 0); return;
  case 0xA6: case 0xA7: case 0xAC: case 0xAD: case 0xAE: case 0xAF:
    set(o, VG_INSN_OTHER, VIGIL_AR_READ, 0);
    return;
  }
  if (op >= 0xD8 && op <= 0xDF) /* x87: loads and stores, with a stack */
    set(o, VG_INSN_OTHER, 0, 0);
}

/* 0F map, and the VEX/EVEX forms of the same moves. */
static void classify_map2(const struct ctx *c, struct vg_insn *o) {
  unsigned op = c->op, reg = c->reg;
  switch (op) {
  case 0xB6: case 0xB7: case 0xBE: case 0xBF:
    if (c->vex)
      break;
    o->opsize = (op & 1) ? 2 : 1;
    o->dest = load_dest(c, 0);
    set(o, VG_INSN_LOAD, VIGIL_AR_READ, 1);
    return;
  case 0x10: case 0x12: case 0x16: case 0x28: case 0x6E: case 0x6F:
    set(o, VG_INSN_LOAD, VIGIL_AR_READ, 1); /* to an xmm register */
    return;
  case 0x7E: /* 66: movd/q m, xmm; F3: movq xmm, m */
    if (c->rep == 0xF3)
      set(o, VG_INSN_LOAD, VIGIL_AR_READ, 1);
    else
      set(o, VG_INSN_STORE, VIGIL_AR_WRITE, 1);
    return;
  case 0x11: case 0x13: case 0x17: case 0x29: case 0x2B: case 0x7F: case 0xD6: case 0xE7:
  case 0xC3:
    set(o, VG_INSN_STORE, VIGIL_AR_WRITE, 1);
    return;
  case 0x2E: case 0x2F: set(o, VG_INSN_READ, VIGIL_AR_READ, 1); return;
  }
  if (c->vex) {
    set(o, VG_INSN_OTHER, VIGIL_AR_READ, 0);
    return;
  }
  if (op >= 0x40 && op <= 0x4F) { /* cmov: reads flags, writes none; dest kept or loaded */
    o->opsize = (uint8_t)opsize(c, 0);
    o->dest = load_dest(c, 0);
    set(o, VG_INSN_LOAD, VIGIL_AR_READ, 1);
  } else if (op >= 0x90 && op <= 0x9F) { /* setcc m8 */
    o->opsize = 1;
    set(o, VG_INSN_STORE, VIGIL_AR_WRITE, 1);
  } else if (op == 0xA3 || (op == 0xBA && reg == 4)) { /* bt */
    set(o, VG_INSN_READ, VIGIL_AR_READ, 1);
  } else if (op == 0xB0 || op == 0xB1 || op == 0xC0 || op == 0xC1 || op == 0xC7 ||
             op == 0xAB || op == 0xB3 || op == 0xBB || op == 0xBA) {
    set(o, VG_INSN_OTHER, VIGIL_AR_READ | VIGIL_AR_WRITE, 0);
  } else if (op >= 0x18 && op <= 0x1F) { /* prefetch, nop m */
    set(o, VG_INSN_OTHER, 0, 0);
  } else {
    set(o, VG_INSN_OTHER, VIGIL_AR_READ, 0); /* SSE arithmetic: op xmm, m reads xmm */
  }
}

/* ---- decoding ------------------------------------------------------------------ */

/* Legacy prefixes and REX: fills c, returns the bytes, -1 too many. */
static int prefixes(const uint8_t *p, size_t max, struct ctx *c, struct vg_insn *o) {
  size_t i = 0;
  for (; i < max && i < 14; i++) {
    uint8_t b = p[i];
    if (b == 0x66)
      c->opsz66 = 1;
    else if (b == 0xF2 || b == 0xF3)
      c->rep = b;
    else if (b == 0x64 || b == 0x65)
      o->seg = 1;
    else if (b == 0xF0 || b == 0x2E || b == 0x36 || b == 0x3E || b == 0x26 || b == 0x67)
      ;
    else
      break;
  }
  if (i < max && (p[i] & 0xF0) == 0x40)
    c->rex = p[i++] & 0xF;
  return i < max ? (int)i : -1;
}

/* VEX (C4/C5) and EVEX (62): the payload bytes; sets map, rex bits, vex. */
static int vex_prefix(const uint8_t *p, size_t max, struct ctx *c) {
  if (p[0] == 0xC5) {
    if (max < 3)
      return -1;
    c->rex = (p[1] & 0x80) ? 0 : 4;
    c->map = 1;
    c->vex = 1;
    c->rep = (p[1] & 3) == 2 ? 0xF3 : (p[1] & 3) == 3 ? 0xF2 : 0;
    return 2;
  }
  unsigned n = p[0] == 0xC4 ? 3 : 4;
  if (max < n + 1)
    return -1;
  c->rex = ((~p[1] >> 5) & 7) | ((p[2] & 0x80) ? 8 : 0);
  c->map = p[1] & (p[0] == 0x62 ? 7 : 0x1F);
  c->vex = p[0] == 0x62 ? 2 : 1;
  c->rep = (p[2] & 3) == 2 ? 0xF3 : (p[2] & 3) == 3 ? 0xF2 : 0;
  if (c->map < 1 || c->map > 6 || c->map == 4 || (c->vex == 1 && c->map > 3))
    return -1;
  return (int)n;
}

/* Immediate bytes of a one-byte-map opcode. */
static int imm_map1(const struct ctx *c, unsigned f) {
  int imm = 0;
  if (f & B)
    imm += 1;
  if (f & W)
    imm += 2;
  if (f & Z)
    imm += c->opsz66 && c->op != 0xE8 && c->op != 0xE9 ? 2 : 4;
  if (f & V)
    imm += (c->rex & 8) ? 8 : c->opsz66 ? 2 : 4;
  if (f & O)
    imm += 8;
  if ((c->op == 0xF6 || c->op == 0xF7) && c->reg < 2)
    imm += c->op == 0xF6 ? 1 : c->opsz66 ? 2 : 4;
  return imm;
}

int vg_insn_decode(const uint8_t *p, size_t max, struct vg_insn *o) {
  struct ctx c = {0};
  memset(o, 0, sizeof *o);
  o->base = o->index = o->dest = -1;
  if (max > 15)
    max = 15;
  int i = prefixes(p, max, &c, o), imm = 0;
  if (i < 0)
    return -1;
  uint8_t b = p[i];
  if (b == 0xC4 || b == 0xC5 || b == 0x62) {
    int n = vex_prefix(p + i, max - i, &c);
    if (n < 0)
      return -1;
    i += n;
    c.op = p[i++];
    c.has_modrm = !(c.map == 1 && c.op == 0x77);
    if (c.map == 3 || (c.map == 1 && (c.op == 0xC2 || (c.op >= 0xC4 && c.op <= 0xC6) ||
                                      (c.op >= 0x70 && c.op <= 0x73))))
      imm = 1;
  } else if (b == 0x0F) {
    if ((size_t)i + 2 > max)
      return -1;
    c.op = p[i + 1];
    i += 2;
    if (c.op == 0x38 || c.op == 0x3A) {
      c.map = c.op == 0x38 ? 2 : 3;
      if ((size_t)i >= max)
        return -1;
      c.op = p[i++];
      c.has_modrm = 1;
      imm = c.map == 3;
    } else {
      c.map = 1;
      c.has_modrm = map2_modrm((uint8_t)c.op);
      imm = map2_imm((uint8_t)c.op);
    }
  } else {
    unsigned f = map1[b];
    if (f & (X | P))
      return -1;
    c.op = b;
    i++;
    c.has_modrm = (f & M) != 0;
    if (c.has_modrm && (size_t)i < max)
      c.reg = (p[i] >> 3) & 7;
    imm = imm_map1(&c, f);
  }
  if (c.has_modrm) {
    if ((size_t)i >= max)
      return -1;
    c.reg = (p[i] >> 3) & 7;
    int n = modrm(p + i, max - i, c.rex, o);
    if (n < 0)
      return -1;
    i += n;
  }
  if ((size_t)(i + imm) > max)
    return -1;
  o->len = (uint8_t)(i + imm);
  if (c.map == 0 && ((c.op >= 0xA0 && c.op <= 0xA7) || (c.op >= 0xAA && c.op <= 0xAF)))
    o->has_mem = 1; /* moffs and string operations: implicit memory */
  if (!o->has_mem)
    return 0;
  if (c.map == 0)
    classify_map1(&c, o);
  else if (c.map == 1)
    classify_map2(&c, o);
  else
    set(o, VG_INSN_OTHER, VIGIL_AR_READ, 0);
  if (o->cls == VG_INSN_LOAD && o->dest >= 0 && (o->dest == o->base || o->dest == o->index))
    o->reexec = 0; /* mov rax, [rax]: the address is gone once it ran */
  return 0;
}
