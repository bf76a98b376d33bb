// Field-assignment events: `o->refcount += 1` (matched by the program's
// `o->refcount++`, `+= 1` and `= o->refcount + 1`), `o->state = CLOSED`
// after the site, `o->gen = ANY(int)`.  A store to another field, to the
// same field of another object, or of another change/value does not count.
// RUN: %vigil-cc -O1 %s -o %t
//
// previously(o->refcount += 1)
// RUN: %t ref inc 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t ref add 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t ref plus-one 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ALGORITHM=history %t ref inc 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t ref other-object 2>&1 | FileCheck %s --check-prefix=REF
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ALGORITHM=history %t ref other-object 2>&1 | FileCheck %s --check-prefix=REF
// RUN: env VIGIL_ON_FAILURE=log %t ref other-field 2>&1 | FileCheck %s --check-prefix=REF
// RUN: env VIGIL_ON_FAILURE=log %t ref by-two 2>&1 | FileCheck %s --check-prefix=REF
// RUN: env VIGIL_ON_FAILURE=log %t ref dec 2>&1 | FileCheck %s --check-prefix=REF
//
// eventually(o->state = ST_CLOSED)
// RUN: %t close close 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t close open-then-close 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ALGORITHM=history %t close close 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t close other-object 2>&1 | FileCheck %s --check-prefix=CLOSE
// RUN: env VIGIL_ON_FAILURE=log %t close other-value 2>&1 | FileCheck %s --check-prefix=CLOSE
// RUN: env VIGIL_ON_FAILURE=log %t close early 2>&1 | FileCheck %s --check-prefix=EARLY
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ALGORITHM=history %t close early 2>&1 | FileCheck %s --check-prefix=EARLY
//
// eventually(o->gen = ANY(int))
// RUN: %t gen store 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t gen none 2>&1 | FileCheck %s --check-prefix=GEN
// RUN: env VIGIL_ON_FAILURE=log %t gen other-object 2>&1 | FileCheck %s --check-prefix=GEN
//
// strict(TSEQUENCE(o->state = ST_OPEN, TESLA_ASSERTION_SITE, o->n++, o->state = ST_CLOSED))
// RUN: %t strict ok 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t strict twice 2>&1 | FileCheck %s --check-prefix=STRICT
#include <stdio.h>
#include <string.h>
#include <tesla.h>

enum { ST_NEW, ST_OPEN, ST_CLOSED };

struct object {
  int refcount;
  int state;
  int n;
  int gen;
};

static struct object objects[2];

void hold(struct object *o) { o->refcount++; }
void hold_add(struct object *o) { o->refcount += 1; }
void hold_plus_one(struct object *o) { o->refcount = o->refcount + 1; }
void hold_by_two(struct object *o) { o->refcount += 2; }
void drop(struct object *o) { o->refcount--; }
void bump_n(struct object *o) { o->n++; }
void set_state(struct object *o, int s) { o->state = s; }
void set_gen(struct object *o, int g) { o->gen = g; }

int sys_ref(const char *how);
int sys_close(const char *how);
int sys_gen(const char *how);
int sys_strict(const char *how);

void use(struct object *o) {
  TESLA_WITHIN(sys_ref, previously(o->refcount += 1));
}
void closing(struct object *o) {
  TESLA_WITHIN(sys_close, eventually(o->state = ST_CLOSED));
}
void touch(struct object *o) {
  TESLA_WITHIN(sys_gen, eventually(o->gen = ANY(int)));
}
void step(struct object *o) {
  TESLA_WITHIN(sys_strict, strict(TSEQUENCE(o->state = ST_OPEN, TESLA_ASSERTION_SITE,
                                            o->n++, o->state = ST_CLOSED)));
}

int sys_ref(const char *how) {
  struct object *o = &objects[0], *other = &objects[1];
  if (!strcmp(how, "inc")) hold(o);
  if (!strcmp(how, "add")) hold_add(o);
  if (!strcmp(how, "plus-one")) hold_plus_one(o);
  if (!strcmp(how, "other-object")) hold(other);
  if (!strcmp(how, "other-field")) bump_n(o);
  if (!strcmp(how, "by-two")) hold_by_two(o);
  if (!strcmp(how, "dec")) drop(o);
  fprintf(stderr, "using\n");
  use(o);
  return 0;
}

int sys_close(const char *how) {
  struct object *o = &objects[0], *other = &objects[1];
  if (!strcmp(how, "early")) set_state(o, ST_CLOSED);
  fprintf(stderr, "closing\n");
  closing(o);
  if (!strcmp(how, "close")) set_state(o, ST_CLOSED);
  if (!strcmp(how, "open-then-close")) { set_state(o, ST_OPEN); set_state(o, ST_CLOSED); }
  if (!strcmp(how, "other-object")) set_state(other, ST_CLOSED);
  if (!strcmp(how, "other-value")) set_state(o, ST_OPEN);
  fprintf(stderr, "leaving\n");
  return 0;
}

int sys_gen(const char *how) {
  struct object *o = &objects[0], *other = &objects[1];
  touch(o);
  if (!strcmp(how, "store")) set_gen(o, 12345);
  if (!strcmp(how, "other-object")) set_gen(other, 7);
  fprintf(stderr, "leaving\n");
  return 0;
}

int sys_strict(const char *how) {
  struct object *o = &objects[0];
  set_state(o, ST_OPEN);
  step(o);
  bump_n(o);
  if (!strcmp(how, "twice")) bump_n(o);
  set_state(o, ST_CLOSED);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 3)
    return 2;
  const char *m = argv[1], *how = argv[2];
  if (!strcmp(m, "ref")) sys_ref(how);
  if (!strcmp(m, "close")) sys_close(how);
  if (!strcmp(m, "gen")) sys_gen(how);
  if (!strcmp(m, "strict")) sys_strict(how);
  fprintf(stderr, "done\n");
  return 0;
}
// OK: done
//
// REF: using
// REF-NEXT: vigil: assertion failed at {{.*}}tesla-lang-fields.c:{{[0-9]+}}:3
// REF: (missing-before-site)
// REF: event: o->refcount += 1
// REF: done
//
// CLOSE: leaving
// CLOSE-NEXT: vigil: assertion failed at {{.*}}tesla-lang-fields.c:{{[0-9]+}}:3
// CLOSE: (missing-after-site)
// CLOSE: event: o->state = ST_CLOSED
// CLOSE: done
//
// EARLY: closing
// EARLY-NEXT: vigil: assertion failed at {{.*}}tesla-lang-fields.c:{{[0-9]+}}:3
// EARLY: (event-before-site)
// EARLY: event: o->state = ST_CLOSED
// EARLY-NOT: assertion failed
// EARLY: done
//
// GEN: leaving
// GEN-NEXT: vigil: assertion failed
// GEN: (missing-after-site)
// GEN: done
//
// STRICT: vigil: assertion failed
// STRICT: (unexpected-event)
// STRICT: event: o->n{{.*}}
// STRICT: done
