// flags(c) and bitmask(c) argument patterns (TESLA's Instrumentation and
// Parsing bitmask tests, at run time), against an exact constant.
//   flags(c):   every bit of c is set        (v & c) == c
//   bitmask(c): no bit outside c is set      (v & ~c) == 0
// RUN: %vigil-cc -O1 %s -o %t
//
// previously(open_file(ANY(ptr), flags(O_READ)) == 0)
// RUN: %t flags 1 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t flags 65 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t flags 11 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t flags 2 2>&1 | FileCheck %s --check-prefix=FLAGS
// RUN: env VIGIL_ON_FAILURE=log %t flags 0 2>&1 | FileCheck %s --check-prefix=FLAGS
// RUN: env VIGIL_ON_FAILURE=log %t flags-failed 1 2>&1 | FileCheck %s --check-prefix=FLAGS
//
// previously(open_file(ANY(ptr), O_READ) == 0): the constant is exact.
// RUN: %t exact 1 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t exact 65 2>&1 | FileCheck %s --check-prefix=EXACT
//
// previously(set_prot(bitmask(P_READ | P_EXEC)) == 0)
// RUN: %t mask 1 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t mask 5 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t mask 0 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t mask 3 2>&1 | FileCheck %s --check-prefix=MASK
// RUN: env VIGIL_ON_FAILURE=log %t mask 8 2>&1 | FileCheck %s --check-prefix=MASK
//
// TESLA's test: previously(foo(flags(FOO | BAR)) == 0, foo(bitmask(FOO | BAZ)) == 0)
// RUN: %t tesla 7,1 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t tesla 3,4 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t tesla 7,3 2>&1 | FileCheck %s --check-prefix=TESLA-MISSING
// RUN: env VIGIL_ON_FAILURE=log %t tesla 1,7 2>&1 | FileCheck %s --check-prefix=TESLA-FIRST
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tesla-macros.h>

#define O_READ 0x1
#define O_WRITE 0x2
#define O_APPEND 0x8
#define O_CREATE 0x40

#define P_READ 0x1
#define P_WRITE 0x2
#define P_EXEC 0x4
#define P_SHARED 0x8

#define FOO 0x1
#define BAR 0x2
#define BAZ 0x4

int open_file(const char *path, int fl) { return path && fl >= 0 ? 0 : -1; }
int set_prot(unsigned prot) { return (int)(prot & 0) ; }
int foo(int x) { return x & 0; }

int sys_read(const char *path, int fl);
int sys_read_exact(const char *path, int fl);
int sys_map(unsigned prot);
int context(const char *list);

void read_data(void) {
  TESLA_WITHIN(sys_read, previously(open_file(ANY(ptr), flags(O_READ)) == 0));
}
void read_data_exact(void) {
  TESLA_WITHIN(sys_read_exact, previously(open_file(ANY(ptr), O_READ) == 0));
}
void map_pages(void) {
  TESLA_WITHIN(sys_map, previously(set_prot(bitmask(P_READ | P_EXEC)) == 0));
}
void use_foo(void) {
  TESLA_WITHIN(context, previously(foo(flags(FOO | BAR)) == 0,
                                   foo(bitmask(FOO | BAZ)) == 0));
}

int sys_read(const char *path, int fl) {
  if (open_file(path, fl) != 0)
    fprintf(stderr, "open failed\n");
  read_data();
  return 0;
}
int sys_read_exact(const char *path, int fl) {
  open_file(path, fl);
  read_data_exact();
  return 0;
}
int sys_map(unsigned prot) {
  set_prot(prot);
  map_pages();
  return 0;
}
/* "7,1": foo(7) then foo(1), then the site. */
int context(const char *list) {
  char *end;
  for (const char *p = list; *p; p = *end ? end + 1 : end) {
    long v = strtol(p, &end, 0);
    foo((int)v);
  }
  use_foo();
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 3)
    return 2;
  const char *m = argv[1];
  int v = atoi(argv[2]);
  if (!strcmp(m, "flags")) sys_read("/etc/motd", v);
  if (!strcmp(m, "flags-failed")) sys_read(NULL, v);
  if (!strcmp(m, "exact")) sys_read_exact("/etc/motd", v);
  if (!strcmp(m, "mask")) sys_map((unsigned)v);
  if (!strcmp(m, "tesla")) context(argv[2]);
  fprintf(stderr, "done\n");
  return 0;
}
// OK: done
//
// FLAGS: vigil: assertion failed at {{.*}}tesla-bitmask.c:{{[0-9]+}}:3
// FLAGS: (missing-before-site)
// FLAGS: event: open_file(ANY(ptr), flags(O_READ)) == 0
// FLAGS: done
// EXACT: vigil: assertion failed at {{.*}}tesla-bitmask.c:{{[0-9]+}}:3
// EXACT: (missing-before-site)
// EXACT: event: open_file(ANY(ptr), O_READ) == 0
// EXACT: done
// MASK: vigil: assertion failed at {{.*}}tesla-bitmask.c:{{[0-9]+}}:3
// MASK: (missing-before-site)
// MASK: event: set_prot(bitmask(P_READ | P_EXEC)) == 0
// MASK: done
//
// foo(7) then foo(3): both have BAR set, so both are the first event; the
// second event (no bit outside FOO|BAZ) never happened.
// TESLA-MISSING: vigil: assertion failed
// TESLA-MISSING: reason: required event foo(bitmask(FOO | BAZ)) == 0 did not happen before the assertion site (missing-before-site)
// TESLA-MISSING: done
// foo(1) then foo(7): 1 is only the second event, 7 only the first: both
// happened, in the wrong order.
// TESLA-FIRST: vigil: assertion failed
// TESLA-FIRST: reason: foo(bitmask(FOO | BAZ)) == 0 happened, but not in the order the assertion requires (wrong-order)
// TESLA-FIRST: done
