// --vigil-trace-events with a TESLA assertion: the functions it names (the
// bound sys_open, the event mac_check) are traced, others are not unless a
// --vigil-trace glob names them too; a violation streams exactly one
// verdict event, named after the assertion, the reason and the event,
// after the record of the event that revealed it, with the captured values
// as named words; with VIGIL_ON_FAILURE=abort the verdict and the stream's
// end are in the file although the program aborted.
// RUN: %vigil-cc --vigil-trace-events -g -O1 %s -o %t
// RUN: env VIGIL_STREAM=file:%t.ok %t ok | FileCheck %s --check-prefix=STDOUT
// RUN: %check-stream %t.ok | FileCheck %s --check-prefix=OK
// RUN: env VIGIL_STREAM=file:%t.log VIGIL_ON_FAILURE=log %t bad > %t.log.out 2> %t.log.err
// RUN: FileCheck %s --check-prefix=REPORT < %t.log.err
// RUN: %check-stream %t.log --hello > %t.log.check
// RUN: %check-stream %t.log --values sys_open/entry --values mac_check/return --values "assertion %s:43:3 missing-before-site mac_check(c, f) == 0/verdict" --values sys_open/return | grep value > %t.log.values
// RUN: cat %t.log.out %t.log.check %t.log.values | FileCheck %s --check-prefix=LOG
// RUN: not --crash env VIGIL_STREAM=file:%t.abort %t bad 2> %t.abort.err
// RUN: FileCheck %s --check-prefix=REPORT < %t.abort.err
// RUN: %check-stream %t.abort | FileCheck %s --check-prefix=ABORT
// Both flags: the globs' functions and the assertion's.
// RUN: %vigil-cc --vigil-trace=helper --vigil-trace-events -O1 %s -o %t.both
// RUN: env VIGIL_STREAM=file:%t.both.bson %t.both ok > /dev/null
// RUN: %check-stream %t.both.bson | FileCheck %s --check-prefix=BOTH
// No tracing flag at all: the stream carries the verdict alone.
// RUN: %vigil-cc -O1 %s -o %t.plain
// RUN: env VIGIL_STREAM=file:%t.plain.bson VIGIL_ON_FAILURE=log %t.plain bad > /dev/null 2>&1
// RUN: %check-stream %t.plain.bson | FileCheck %s --check-prefix=PLAIN
// Without VIGIL_STREAM: the report as always, no stream.
// RUN: rm -f %t.none && env VIGIL_ON_FAILURE=log %t bad 2>&1 | FileCheck %s --check-prefix=REPORT && not test -e %t.none
#include <stdio.h>
#include <string.h>
#include <tesla.h>

struct cred { int uid; };
struct file { int mode; };

int mac_check(struct cred *c, struct file *f) { return c->uid == 0 || f->mode == 0 ? 0 : -1; }

__attribute__((noinline)) int helper(int x) { return x + 1; }

int sys_open(struct cred *c, struct file *f, struct file *checked);

int vfs_open(struct cred *c, struct file *f) {
  TESLA_WITHIN(sys_open, previously(mac_check(c, f) == 0));
  return 0;
}

int sys_open(struct cred *c, struct file *f, struct file *checked) {
  if (mac_check(c, checked) != 0)
    return -1;
  return vfs_open(c, f) + helper(0) - 1;
}

int main(int argc, char **argv) {
  struct cred user = {1000};
  struct file pub = {0}, priv = {0};
  if (!strcmp(argv[1], "ok")) {
    sys_open(&user, &pub, &pub);
  } else {
    printf("c %lu f %lu\n", (unsigned long)&user, (unsigned long)&priv);
    sys_open(&user, &priv, &pub); /* checked pub, opened priv */
  }
  puts("done");
  return 0;
}
// STDOUT: done

// OK: threads 1 batches {{[0-9]+}} events 4 lost 0 produced 4
// OK-NEXT: event mac_check/entry 1
// OK-NEXT: event mac_check/return 1
// OK-NEXT: event sys_open/entry 1
// OK-NEXT: event sys_open/return 1
// OK-NOT: {{^}}event 

// REPORT: vigil: assertion failed at {{.*}}events-assertion.c:43:3
// REPORT: reason:{{ +}}required event mac_check(c, f) == 0 did not happen before the assertion site (missing-before-site)

// LOG: c [[C:[0-9]+]] f [[F:[0-9]+]]
// LOG-NEXT: done
// LOG-NEXT: threads 1 batches {{[0-9]+}} events 5 lost 0 produced 5
// LOG-NEXT: event assertion {{.*}}events-assertion.c:43:3 missing-before-site mac_check(c, f) == 0/verdict 1
// LOG-NEXT: event mac_check/entry 1
// LOG-NEXT: event mac_check/return 1
// LOG-NEXT: event sys_open/entry 1
// LOG-NEXT: event sys_open/return 1
// LOG-DAG: declare mac_check/entry args ptr,ptr names c,f
// LOG-DAG: declare sys_open/entry args ptr,ptr,ptr names c,f,checked
// LOG-DAG: declare assertion {{.*}}events-assertion.c:43:3 missing-before-site mac_check(c, f) == 0/verdict args u64,u64,ptr,u64,u64 names alternative,known,key,c,f
// alternative 0 (one), known 6 (c and f, not key), key 0, c, f
// LOG: value sys_open/entry
// LOG-NEXT: value mac_check/return 0
// LOG-NEXT: value assertion {{.*}}/verdict 0 6 0x0 [[C]] [[F]]
// LOG-NEXT: value sys_open/return 0
// LOG-NOT: value

// ABORT: threads 1 batches {{[0-9]+}} events 4 lost 0 produced 4
// ABORT-NEXT: event assertion {{.*}}events-assertion.c:43:3 missing-before-site mac_check(c, f) == 0/verdict 1
// ABORT-NEXT: event mac_check/entry 1
// ABORT-NEXT: event mac_check/return 1
// ABORT-NEXT: event sys_open/entry 1
// ABORT-NOT: {{^}}event 

// BOTH: event helper/entry 1
// BOTH-NEXT: event helper/return 1
// BOTH-NEXT: event mac_check/entry 1
// BOTH-NEXT: event mac_check/return 1
// BOTH-NEXT: event sys_open/entry 1
// BOTH-NEXT: event sys_open/return 1

// PLAIN: threads 1 batches {{[0-9]+}} events 1 lost 0 produced 1
// PLAIN-NEXT: event assertion {{.*}}events-assertion.c:43:3 missing-before-site mac_check(c, f) == 0/verdict 1
// PLAIN-NOT: {{^}}event 
