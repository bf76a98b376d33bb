// Struct automata: every `struct obj` follows obj_lifecycle (OPEN, then
// CLOSED) from obj_init(o) to the return of obj_free(o); one instance per
// object, strict, global table.  Objects never initialised are ignored.
// A trace is a list of operation/object pairs: I = obj_init, O = open,
// C = close, F = obj_free, N = obj_rename (not in the automaton); a, b, c
// are three objects.
// RUN: %vigil-cc -O1 %s -o %t
// RUN: %t IaOaCaFa 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t IaIbOaObCbCaFbFa 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t IaOaNaCaFa 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t OcCcOcIaOaCaFaCa 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t IaOaCaFaIaOaCaFa 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t IaCaFa 2>&1 | FileCheck %s --check-prefix=SKIP
// RUN: env VIGIL_ON_FAILURE=log %t IaOaOaCaFa 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: env VIGIL_ON_FAILURE=log %t IaOaFa 2>&1 | FileCheck %s --check-prefix=END
// RUN: env VIGIL_ON_FAILURE=log %t IaIbOaObCaFaFb 2>&1 | FileCheck %s --check-prefix=INTERLEAVED
// RUN: env VIGIL_ON_FAILURE=log %t IaIbObOaCbCaFbFaIaCaFa 2>&1 | FileCheck %s --check-prefix=AGAIN
#include <stdio.h>
#include <string.h>
#include <tesla-macros.h>

enum { ST_NEW, ST_OPEN, ST_CLOSED };

struct obj {
  int state;
  const char *name;
};

void obj_init(struct obj *o);
void obj_free(struct obj *o);

automaton(obj_lifecycle, struct obj *o) {
  o->state = ST_OPEN;
  o->state = ST_CLOSED;
  tesla_done;
}

TESLA_STRUCT_AUTOMATON(struct obj *o, obj_lifecycle, __tesla_global,
                       call(obj_init(o)), returnfrom(obj_free(o)));

void obj_init(struct obj *o) { o->state = ST_NEW; }
void obj_free(struct obj *o) { (void)o; }
void obj_open(struct obj *o) { o->state = ST_OPEN; }
void obj_close(struct obj *o) { o->state = ST_CLOSED; }
void obj_rename(struct obj *o, const char *name) { o->name = name; }

int main(int argc, char **argv) {
  static struct obj objs[3];
  if (argc < 2)
    return 2;
  for (const char *p = argv[1]; p[0] && p[1]; p += 2) {
    struct obj *o = &objs[p[1] - 'a'];
    fprintf(stderr, "%c%c\n", p[0], p[1]);
    switch (p[0]) {
    case 'I': obj_init(o); break;
    case 'O': obj_open(o); break;
    case 'C': obj_close(o); break;
    case 'F': obj_free(o); break;
    case 'N': obj_rename(o, "renamed"); break;
    }
  }
  fprintf(stderr, "done\n");
  return 0;
}
// OK: done
//
// CLOSED before OPEN: not a transition.
// SKIP: Ca
// SKIP-NEXT: vigil: assertion failed at {{.*}}tesla-lang-struct.c:
// SKIP: (unexpected-event)
// SKIP: event: o->state = ST_CLOSED
// SKIP-NOT: assertion failed
// SKIP: done
//
// TWICE: Oa
// TWICE: Oa
// TWICE-NEXT: vigil: assertion failed
// TWICE: (unexpected-event)
// TWICE: event: o->state = ST_OPEN
// TWICE-NOT: assertion failed
// TWICE: done
//
// END: Fa
// END-NEXT: vigil: assertion failed
// END: (missing-after-site)
// END: event: o->state = ST_CLOSED
// END-NOT: assertion failed
// END: done
//
// b is freed while open: only b's automaton fails, at its free.
// INTERLEAVED: Fa
// INTERLEAVED-NOT: assertion failed
// INTERLEAVED: Fb
// INTERLEAVED-NEXT: vigil: assertion failed
// INTERLEAVED: (missing-after-site)
// INTERLEAVED-NOT: assertion failed
// INTERLEAVED: done
//
// A conforming pair, then a new life of a that skips OPEN.
// AGAIN: Fa
// AGAIN-NOT: assertion failed
// AGAIN: Ia
// AGAIN: Ca
// AGAIN-NEXT: vigil: assertion failed
// AGAIN: (unexpected-event)
// AGAIN-NOT: assertion failed
// AGAIN: done
