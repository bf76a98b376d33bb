// A function traced in its body is split in two (compiler/pass/TraceClone.cpp):
// with the stream on it tail-calls its traced copy, with the stream off it
// runs its own body without records.  Both carry the same assertion and
// monitor hooks, placed before the split: here every traced function is
// also an assertion bound (sys_open, anchored, recursive), an assertion
// event (mac_check at its return, file_release at its call) or a monitor
// event (txn.bind: txn_begin at its return, txn_commit and txn_abort at
// their call).  The reports and VIGIL_STATS's counts (instances, events,
// passes, failures: a hook run twice or not at all would change them;
// slow-events depends on VIGIL_FAST_PATH, it is compared, not pinned) are
// the same with the stream off, with it on, and in a build without
// tracing; the stream has each verdict right after the record of the
// event that revealed it (the bound's return record, txn_abort's entry
// record).  -O0 and -O2.
// RUN: %vigil-cc --vigil-trace-events --vigil-monitor=%S/../e2e/Inputs/monitor/txn.bind -O2 %s -o %t
// RUN: %vigil-cc --vigil-trace-events --vigil-monitor=%S/../e2e/Inputs/monitor/txn.bind -O0 %s -o %t.O0
// RUN: %vigil-cc --vigil-monitor=%S/../e2e/Inputs/monitor/txn.bind -O2 %s -o %t.plain
// RUN: llvm-nm %t | FileCheck %s --check-prefix=SPLIT
// RUN: llvm-nm %t.O0 | FileCheck %s --check-prefix=SPLIT
// RUN: env VIGIL_ON_FAILURE=log VIGIL_STATS=1 VIGIL_BACKTRACE=0 %t.plain bad 2>&1 | grep -v -e values: -e thread: > %t.expected
// RUN: FileCheck %s --check-prefix=REPORT < %t.expected
// RUN: env VIGIL_ON_FAILURE=log VIGIL_STATS=1 VIGIL_BACKTRACE=0 %t bad 2>&1 | grep -v -e values: -e thread: > %t.off
// RUN: diff %t.expected %t.off
// RUN: env VIGIL_STREAM=file:%t.bson VIGIL_ON_FAILURE=log VIGIL_STATS=1 VIGIL_BACKTRACE=0 %t bad 2>&1 | grep -v -e values: -e thread: > %t.on
// RUN: diff %t.expected %t.on
// RUN: env VIGIL_ON_FAILURE=log VIGIL_STATS=1 VIGIL_BACKTRACE=0 %t.O0 bad 2>&1 | grep -v -e values: -e thread: > %t.O0.off
// RUN: diff %t.expected %t.O0.off
// RUN: env VIGIL_STREAM=file:%t.O0.bson VIGIL_ON_FAILURE=log VIGIL_STATS=1 VIGIL_BACKTRACE=0 %t.O0 bad 2>&1 | grep -v -e values: -e thread: > %t.O0.on
// RUN: diff %t.expected %t.O0.on
// RUN: %check-stream %t.bson --values sys_open/entry --values sys_open/return --values mac_check/return --values txn_abort/entry --values txn_abort/return --values "assertion %s:60:3 missing-before-site mac_check(c, f) == 0/verdict" --values "assertion %s:61:3 missing-after-site call(file_release(f))/verdict" --values "monitor txn monitor-invalid-event idle abort/verdict" > %t.order
// RUN: %check-stream %t.O0.bson --values sys_open/entry --values sys_open/return --values mac_check/return --values txn_abort/entry --values txn_abort/return --values "assertion %s:60:3 missing-before-site mac_check(c, f) == 0/verdict" --values "assertion %s:61:3 missing-after-site call(file_release(f))/verdict" --values "monitor txn monitor-invalid-event idle abort/verdict" > %t.O0.order
// RUN: FileCheck %s --check-prefix=ORDER < %t.order
// RUN: FileCheck %s --check-prefix=ORDER < %t.O0.order
// The good run: nothing reported, the same counts on and off.
// RUN: env VIGIL_STATS=1 %t.plain ok > %t.ok.expected 2>&1
// RUN: env VIGIL_STATS=1 %t ok > %t.ok.off 2>&1
// RUN: env VIGIL_STREAM=file:%t.ok.bson VIGIL_STATS=1 %t ok > %t.ok.on 2>&1
// RUN: diff %t.ok.expected %t.ok.off
// RUN: diff %t.ok.expected %t.ok.on
// RUN: FileCheck %s --check-prefix=OK < %t.ok.on
#include <stdio.h>
#include <string.h>
#include <tesla.h>

struct cred { int uid; };
struct file { int mode; };

__attribute__((noinline)) int mac_check(struct cred *c, struct file *f) {
  return c->uid == 0 || f->mode == 0 ? 0 : -1;
}
__attribute__((noinline)) void file_release(struct file *f) { f->mode = -f->mode; }

__attribute__((noinline)) int txn_begin(int fail) { return fail ? -1 : 0; }
__attribute__((noinline)) void txn_commit(void) {}
__attribute__((noinline)) void txn_abort(void) {}

int sys_open(struct cred *c, struct file *f, struct file *checked, int depth);

int vfs_open(struct cred *c, struct file *f) {
  TESLA_WITHIN(sys_open, previously(mac_check(c, f) == 0));
  TESLA_WITHIN(sys_open, eventually(call(file_release(f))));
  return 0;
}

static int forget; /* sys_open forgets the release */

/* Recursive: the nested calls are inside the outermost's bound. */
int sys_open(struct cred *c, struct file *f, struct file *checked, int depth) {
  if (depth > 0)
    return sys_open(c, f, checked, depth - 1);
  if (mac_check(c, checked) != 0)
    return -1;
  int r = vfs_open(c, f);
  if (!forget)
    file_release(f);
  return r;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  int bad = argc > 1 && !strcmp(argv[1], "bad");
  struct cred user = {1000};
  struct file pub = {0}, priv = {5};
  for (int i = 0; i < 3; i++) {
    sys_open(&user, &pub, &pub, i);
    if (txn_begin(0) == 0)
      txn_commit();
    txn_begin(1); /* fails: not a begin */
  }
  if (bad) {
    sys_open(&user, &priv, &pub, 3); /* checked pub, opened priv */
    forget = 1;
    sys_open(&user, &pub, &pub, 0); /* never released */
    txn_abort();                    /* no transaction open */
    txn_begin(0);                   /* left open at exit */
  }
  puts("done");
  return 0;
}
// SPLIT-DAG: t file_release.vigil.traced
// SPLIT-DAG: t mac_check.vigil.traced
// SPLIT-DAG: t sys_open.vigil.traced
// SPLIT-DAG: t txn_abort.vigil.traced
// SPLIT-DAG: t txn_begin.vigil.traced
// SPLIT-DAG: t txn_commit.vigil.traced

// REPORT:      vigil: assertion failed at {{.*}}split-hooks.c:[[#VFS:]]:3
// REPORT:      reason:{{ +}}required event mac_check(c, f) == 0 did not happen before the assertion site (missing-before-site)
// REPORT:      vigil: assertion failed at {{.*}}split-hooks.c:[[#VFS+1]]:3
// REPORT:      reason:{{ +}}required event call(file_release(f)) did not happen after the assertion site before the bound ended (missing-after-site)
// REPORT:      vigil: monitor violation: txn
// REPORT:      reason:{{ +}}event abort is not allowed in state idle (monitor-invalid-event)
// REPORT:      done
// REPORT:      vigil: monitor violation: txn
// REPORT:      reason:{{ +}}the program exited in state open, which is not final (not-final-at-exit)
// REPORT:      vigil: statistics (2 assertions)
// REPORT-NEXT: assertion{{ +}}instances{{ +}}slow-events{{ +}}passes{{ +}}failures{{ +}}dropped
// REPORT-NEXT: {{.*}}split-hooks.c:[[#VFS+1]]:3{{ +}}5{{ +[0-9]+ +}}4{{ +}}1{{ +}}0
// REPORT-NEXT: {{.*}}split-hooks.c:[[#VFS]]:3{{ +}}5{{ +[0-9]+ +}}4{{ +}}1{{ +}}0
// REPORT:      vigil: monitors
// REPORT-NEXT: monitor{{ +}}events violations{{ +}}dropped
// REPORT-NEXT: txn (txn.bind){{ +}}8{{ +}}2{{ +}}0

// The bad part of the run: the first call (depth 3: four entries), the
// missing check's verdict after mac_check's return record (the site is in
// vfs_open, untraced), the missing release's verdict after the outermost
// return record (the bound's end), then txn_abort's entry record, its
// verdict, its return record.
// ORDER:      value sys_open/entry {{.*}} 3
// ORDER-NEXT: value sys_open/entry {{.*}} 2
// ORDER-NEXT: value sys_open/entry {{.*}} 1
// ORDER-NEXT: value sys_open/entry {{.*}} 0
// ORDER-NEXT: value mac_check/return 0
// ORDER-NEXT: value assertion {{.*}}missing-before-site{{.*}}/verdict
// ORDER-NEXT: value sys_open/return 0
// ORDER-NEXT: value sys_open/return 0
// ORDER-NEXT: value sys_open/return 0
// ORDER-NEXT: value sys_open/return 0
// ORDER-NEXT: value sys_open/entry {{.*}} 0
// ORDER-NEXT: value mac_check/return 0
// ORDER-NEXT: value sys_open/return 0
// ORDER-NEXT: value assertion {{.*}}missing-after-site{{.*}}/verdict
// ORDER-NEXT: value txn_abort/entry
// ORDER-NEXT: value monitor txn monitor-invalid-event idle abort/verdict 0 0 0 8
// ORDER-NEXT: value txn_abort/return
// ORDER-NOT:  value

// OK:      done
// OK:      vigil: statistics (2 assertions)
// OK-NOT:  failed
// OK:      vigil: monitors
