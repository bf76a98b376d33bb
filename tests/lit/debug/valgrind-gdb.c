// What vigil-cc builds stays debuggable: memcheck reads its debug info and
// finds no error of vigil's (field events, an out-parameter, a struct
// automaton and a value-carrying assertion are all instrumented here), and
// gdb stops at a source line in an instrumented function with a backtrace.
// REQUIRES: valgrind, gdb
// RUN: %vigil-cc -g -O0 %s -o %t0
// RUN: %vigil-cc -g -O1 %s -o %t1
// The first store to a malloc'ed field observed by `+= 1` reads the old,
// uninitialised value (TESLA's rule); valgrind/vigil.supp covers exactly
// vigil's out-of-line hook for that, and the program's own errors still show.
// RUN: valgrind -q --error-exitcode=9 --suppressions=%root/valgrind/vigil.supp %t0 2>&1 | FileCheck %s --check-prefix=VG
// RUN: valgrind -q --error-exitcode=9 --suppressions=%root/valgrind/vigil.supp %t1 2>&1 | FileCheck %s --check-prefix=VG
// RUN: env VIGIL_ON_FAILURE=log valgrind -q --error-exitcode=9 --suppressions=%root/valgrind/vigil.supp %t1 bug 2>&1 | FileCheck %s --check-prefix=VGBUG
// RUN: not valgrind -q --error-exitcode=9 --suppressions=%root/valgrind/vigil.supp %t0 uninit 2>&1 | FileCheck %s --check-prefix=VGUSER
// RUN: not valgrind -q --error-exitcode=9 %t0 2>&1 | FileCheck %s --check-prefix=VGNOSUPP
// Without -g too: memcheck, callgrind (its profile names the runtime's
// functions) and perf (counting and sampling).
// RUN: %vigil-cc -O1 %s -o %tn
// RUN: valgrind -q --error-exitcode=9 --suppressions=%root/valgrind/vigil.supp %tn 2>&1 | FileCheck %s --check-prefix=VG
// RUN: valgrind -q --tool=callgrind --callgrind-out-file=%t.cg %tn 2>&1 | FileCheck %s --check-prefix=VG
// RUN: callgrind_annotate %t.cg | FileCheck %s --check-prefix=CG
// RUN: perf stat -e task-clock -- %t1 2>&1 | FileCheck %s --check-prefix=PERFSTAT
// RUN: perf record -q -o %t.perf -- %tn 2>&1 | FileCheck %s --check-prefix=VG
// RUN: perf report -i %t.perf --stdio 2>&1 | FileCheck %s --check-prefix=PERFREPORT
// RUN: gdb -nx -batch -ex 'break use_object' -ex run -ex bt %t0 2>&1 | FileCheck %s --check-prefix=GDB
// RUN: gdb -nx -batch -ex 'break use_object' -ex run -ex bt %t1 2>&1 | FileCheck %s --check-prefix=GDB
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tesla-macros.h>

enum { NEW, LIVE, DEAD };
struct object { int refcount; int state; };

int main(int argc, char **argv);
int get_object(int want, struct object **out);
void object_init(struct object *o);
void object_free(struct object *o);

automaton(object_life, struct object *o) {
  o->state = LIVE;
  o->state = DEAD;
  tesla_done;
}

TESLA_STRUCT_AUTOMATON(struct object *o, object_life, __tesla_global,
                       call(object_init(o)), returnfrom(object_free(o)));

static struct object *table[2];

int get_object(int want, struct object **out) {
  if (want < 0 || want > 1)
    return -1;
  *out = table[want];
  return 0;
}

void use_object(struct object *o) {
  TESLA_WITHIN(main, previously(get_object(ANY(int), &o) == 0));
  // VGBUG: vigil: assertion failed at {{.*}}valgrind-gdb.c:[[#@LINE-1]]:3
  // GDB: Breakpoint 1{{(\.[0-9]+)?}}, use_object (o={{.*}}) at {{.*}}valgrind-gdb.c:[[#@LINE-2]]
  TESLA_WITHIN(main, previously(o->refcount += 1));
  o->refcount--;
}

void object_init(struct object *o) { o->state = NEW; }
void object_free(struct object *o) { free(o); }

int main(int argc, char **argv) {
  for (int i = 0; i < 2; i++) {
    table[i] = malloc(sizeof *table[i]); /* fields uninitialised here */
    object_init(table[i]);
    table[i]->refcount = 1;
    table[i]->state = LIVE;
  }
  struct object *o;
  get_object(1, &o);
  if (argc > 1 && !strcmp(argv[1], "uninit")) {
    int *junk = malloc(sizeof *junk);
    if (*junk == 42) /* the program's own error: must still be reported */
      puts("42");
    free(junk);
  }
  if (argc > 1 && !strcmp(argv[1], "bug"))
    o = table[0]; /* not the object get_object returned */
  else
    o->refcount++;
  use_object(o);
  for (int i = 0; i < 2; i++) {
    table[i]->state = DEAD;
    object_free(table[i]);
  }
  printf("done\n");
  return 0;
}
// VG-NOT: vigil: assertion failed
// VG-NOT: ==
// VG: done
// VGBUG: done
// VGUSER: Conditional jump or move depends on uninitialised value
// VGUSER-NEXT: at {{.*}}: main ({{.*}}valgrind-gdb.c:
// VGNOSUPP: Conditional jump or move depends on uninitialised value
// VGNOSUPP-NEXT: at {{.*}}: __vigil_point.struct.object.0.plain
// GDB: #0 {{.*}}use_object
// GDB: #1 {{.*}}main {{.*}}valgrind-gdb.c

// CG: PROGRAM TOTALS
// CG: {{runtime/.*\.c}}:{{[a-z_]+}}
// PERFSTAT: done
// PERFSTAT: task-clock
// PERFREPORT: Samples
