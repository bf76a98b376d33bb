/*
 * symbolize.h — the stack of a report, symbolised (symbolize.c).
 */
#ifndef VIGIL_SYMBOLIZE_H
#define VIGIL_SYMBOLIZE_H

#include <stdint.h>

#include "internal.h"

struct vg_frame {
  uintptr_t address;  /* return address (the call's address for lookups) */
  uintptr_t offset;   /* the call's address in the module's file */
  char module[256];   /* "" when unknown */
  char function[128]; /* "" when unknown */
  char file[256];     /* "" without debug info */
  unsigned line, column;
  int inlined;        /* inlined into the next frame (same address) */
};

/* The calling thread's stack above libvigil's entry points, innermost
 * first, inlined frames expanded; NULL when there is none.  Free with
 * free(). */
struct vg_frame *vg_stack(int *count);
/* The same for addresses captured earlier (atomic regions record a remote
 * thread's stack as raw addresses: it cannot be symbolised where it is
 * captured, possibly a signal handler).  pcs[0] is an instruction's own
 * address unless first_is_return; the others are return addresses. */
struct vg_frame *vg_stack_of(const uintptr_t *pcs, int n, int first_is_return,
                             int *count);

/* "#3 demo.c:63:3 in vfs_open (demo+0x1218)"-style text, and the JSON
 * object of a frame. */
void vg_frame_text(struct vg_buf *b, const struct vg_frame *f, int index);
void vg_frame_json(struct vg_buf *b, const struct vg_frame *f);

#endif
