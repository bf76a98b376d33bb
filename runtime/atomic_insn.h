/*
 * atomic_insn.h — the x86-64 instruction knowledge the watchpoint backend
 * needs after a data watchpoint trapped (runtime/atomic_insn.c): where the
 * instruction that made the access starts (x86 traps after it, §3.3), what
 * it did to memory, and whether rewinding the PC to it re-executes it
 * faithfully once its write is undone.
 */
#ifndef VIGIL_ATOMIC_INSN_H
#define VIGIL_ATOMIC_INSN_H

#include <stddef.h>
#include <stdint.h>

/* What the instruction does with its memory operand. */
enum vg_insn_class {
  VG_INSN_OTHER = 0, /* not understood, or side effects beyond memory */
  VG_INSN_LOAD,      /* memory -> a register it does not also read (mov, movzx, SSE loads) */
  VG_INSN_READ,      /* memory read into flags only (cmp, test, bt, ucomis) */
  VG_INSN_STORE,     /* register/immediate -> memory, nothing else (mov, setcc, SSE stores) */
  VG_INSN_RMW        /* memory op= register/immediate (add, inc, shl...) */
};

struct vg_insn {
  uint8_t len;      /* bytes */
  uint8_t cls;      /* enum vg_insn_class */
  uint8_t kind;     /* VIGIL_AR_READ / _WRITE mask of the memory access; 0 unknown */
  uint8_t reexec;   /* rewinding to it and running it again is faithful (before regs) */
  uint8_t has_mem;  /* a ModRM memory operand, or an implicit one */
  uint8_t opsize;   /* bytes of the memory operand when known (1, 2, 4, 8), else 0 */
  uint8_t seg;      /* an fs/gs override: its address is not computable here */
  uint8_t rip_rel;  /* RIP-relative */
  int8_t base, index; /* register numbers 0-15, -1 none */
  uint8_t scale;
  int8_t dest;      /* the general register a LOAD writes, -1 none (xmm, flags) */
  int32_t disp;
};

/* Decodes the instruction at p (at most max bytes readable).  0 with *out
 * filled, -1 when the bytes are not an instruction this decoder knows. */
int vg_insn_decode(const uint8_t *p, size_t max, struct vg_insn *out);

/* The instruction that ends exactly at pc (the PC a data watchpoint trap
 * reports): *start and *out.  0 found, -1 not (pc is a call target, code
 * without a symbol and with an ambiguous encoding, or bytes not decoded).
 * Async-signal-safe enough for a synchronous SIGTRAP: dladdr (the loader's
 * recursive lock) and reads of the code; a small lock-free cache of
 * verified answers. */
int vg_insn_before(uintptr_t pc, uintptr_t *start, struct vg_insn *out);

/* The effective address of in's memory operand given the 16 general
 * registers (rax, rcx, rdx, rbx, rsp, rbp, rsi, rdi, r8..r15) and the
 * address of the next instruction: 0 with *ea, -1 (segment override,
 * implicit operand). */
int vg_insn_ea(const struct vg_insn *in, const uint64_t regs[16], uintptr_t next, uintptr_t *ea);

#endif /* VIGIL_ATOMIC_INSN_H */
