// The eight interleavings of (first local, remote, second local) on one
// variable, in detect mode (nothing is held, so the order is fixed by the
// test: begin, the remote thread's checked access, join, end).  The four
// non-serializable ones (RWR, WWR, WRW, RWW) are reported, on stderr and
// as JSON; the four serializable ones (RRR, RRW, WRR, WWW) are not, though
// their remote access was recorded.  A remote read-modify-write breaks
// every pair.
// RUN: %atomic-cc %s -o %t %atomic-libs
// RUN: rm -f %t.jsonl
// RUN: env VIGIL_ATOMIC_MODE=detect VIGIL_ON_FAILURE=log VIGIL_REPORT=%t.jsonl %t RWR 2>&1 | FileCheck %s --check-prefix=RWR
// RUN: FileCheck %s --check-prefix=RWR-JSON < %t.jsonl
// RUN: env VIGIL_ATOMIC_MODE=detect VIGIL_ON_FAILURE=log %t WWR 2>&1 | FileCheck %s --check-prefix=WWR
// RUN: env VIGIL_ATOMIC_MODE=detect VIGIL_ON_FAILURE=log %t WRW 2>&1 | FileCheck %s --check-prefix=WRW
// RUN: env VIGIL_ATOMIC_MODE=detect VIGIL_ON_FAILURE=log %t RWW 2>&1 | FileCheck %s --check-prefix=RWW
// RUN: env VIGIL_ATOMIC_MODE=detect VIGIL_ON_FAILURE=log %t RMW 2>&1 | FileCheck %s --check-prefix=RMW
// RUN: rm -f %t.ser.jsonl
// RUN: env VIGIL_ATOMIC_MODE=detect VIGIL_ON_FAILURE=log VIGIL_REPORT=%t.ser.jsonl %t RRR 2>&1 | FileCheck %s --check-prefix=SER
// RUN: env VIGIL_ATOMIC_MODE=detect VIGIL_ON_FAILURE=log VIGIL_REPORT=%t.ser.jsonl %t RRW 2>&1 | FileCheck %s --check-prefix=SER
// RUN: env VIGIL_ATOMIC_MODE=detect VIGIL_ON_FAILURE=log VIGIL_REPORT=%t.ser.jsonl %t WRR 2>&1 | FileCheck %s --check-prefix=SER
// RUN: env VIGIL_ATOMIC_MODE=detect VIGIL_ON_FAILURE=log VIGIL_REPORT=%t.ser.jsonl %t WWW 2>&1 | FileCheck %s --check-prefix=SER
// RUN: FileCheck %s --check-prefix=SER-JSON < %t.ser.jsonl
// No remote at all: nothing.
// RUN: env VIGIL_ON_FAILURE=log VIGIL_STATS=1 %t none 2>&1 | FileCheck %s --check-prefix=NONE
#include "program.h"

static uint32_t site;

static void *remote(void *arg) {
  (void)arg;
  checked_access(&x, site);
  return NULL;
}

int main(int argc, char **argv) {
  const char *p = argc > 1 ? argv[1] : "none";
  pthread_setname_np(pthread_self(), "local");
  int rmw = !strcmp(p, "RMW");
  uint32_t ar = rmw || p[0] == 'R' ? AR_READER : AR_WRITER;
  site = rmw ? SITE_RMW : p[1] == 'W' ? SITE_WRITE : SITE_READ;
  uint32_t end = ar == AR_READER ? (rmw || p[2] == 'W' ? END_R_W : END_R_R)
                                 : (p[2] == 'W' ? END_W_W : END_W_R);
  __vigil_ar_begin(ar, &x, 7);
  if (strcmp(p, "none"))
    on_thread("remote", remote, NULL);
  __vigil_ar_end(end, &x);
  __vigil_ar_clear(0, 3);
  fprintf(stderr, "done %s\n", p);
  return 0;
}
// RWR: vigil: atomicity violation (RWR) on x at t.c:10:5
// RWR-NEXT: atomic region of x in reader: read at t.c:10:5, then read at t.c:12:5
// RWR-NEXT: reason: thread [[R:[0-9]+]]'s write of x came between this thread's read and read of it; no serial order of the three accesses gives that (RWR) (atomicity-violation)
// RWR-NEXT: event: remote write at t.c:31:3
// RWR-NEXT: variable: x at 0x{{[0-9a-f]+}} (declared t.c:3:5)
// RWR-NEXT: first: read at t.c:10:5, thread [[L:[0-9]+]] (local)
// RWR-NEXT: remote: write at t.c:31:3, thread [[R]] (remote), seen by check
// RWR-NEXT: second: read at t.c:12:5, thread [[L]] (local)
// RWR-NEXT: verdict: not prevented: detect mode records without holding
// RWR-NEXT: remote: backtrace of thread [[R]]:
// RWR-NEXT: #0 {{.*}}program.h:{{[0-9]+}}:{{[0-9]+}} in checked_access (inlined)
// RWR-NEXT: #1 {{.*}}patterns.c:{{[0-9]+}}:{{[0-9]+}} in remote
// RWR: thread: [[L]] (local)
// RWR-NEXT: backtrace:
// RWR-NEXT: #0 {{.*}}patterns.c:{{[0-9]+}}:{{[0-9]+}} in main
// RWR: done RWR
// RWR-JSON: {"assertion":"t.c:10:5","text":"atomic region of x in reader: read at t.c:10:5, then read at t.c:12:5","reason":"atomicity-violation",{{.*}}"kind":"atomicity","pattern":"RWR","prevented":false,"timed_out":false,"held_ms":0.000,"mode":"detect","detector":"checks","ar":0,"variable":"x","address":"0x{{[0-9a-f]+}}","function":"reader","first":{"file":"t.c","line":10,"column":5,"kind":"read"},"second":{"file":"t.c","line":12,"column":5,"kind":"read","self_loop":false},"remote":{"file":"t.c","line":31,"column":3,"kind":"write","via":"check","thread":{{[0-9]+}},"thread_name":"remote","site":1,"repeats":0,"backtrace":[{{.*}}"function":"remote"{{.*}}]},"thread":{{[0-9]+}},"thread_name":"local",{{.*}}"backtrace":[{{.*}}"function":"main"
// RWR-JSON-NEXT: {"type":"summary","kind":"atomic-stats","mode":"detect","detector":"checks","pid":{{[0-9]+}},"begins":1,"ends":1,"clears":0,"self_loops":0,"whitelisted":0,"unmonitored_no_slot":0,"unmonitored_no_watchpoint":0,"unmonitored_thread_full":0,"remotes":1,"remote_repeats":0,"held":0,"timeouts":0,"serializable":0,"violations":1,"prevented":0,"repeated_reports":0,"pauses":0,"begin_collisions":0,"begins_queued":0,"begins_forced":0,"writes_undone":0,"writes_not_undone":0,"reads_settled":0,"reads_unsettled":0,"waits_extended":0,"waits_cut":0,"pauses_skipped":0,"ends_ahead":0}
// WWR: vigil: atomicity violation (WWR) on x at t.c:20:5
// WWR: remote: write at t.c:31:3
// WWR: second: read at t.c:22:5
// WRW: vigil: atomicity violation (WRW) on x at t.c:20:5
// WRW: remote: read at t.c:30:3
// WRW: second: write at t.c:23:5
// RWW: vigil: atomicity violation (RWW) on x at t.c:10:5
// RWW: remote: write at t.c:31:3
// RWW: second: write at t.c:13:5
// RMW: vigil: atomicity violation (RWW) on x at t.c:10:5
// RMW: remote: read-modify-write at t.c:32:3
// SER-NOT: vigil: atomicity violation
// SER: done
// SER-JSON-NOT: atomicity-violation
// SER-JSON: "remotes":1,{{.*}}"serializable":1,"violations":0
// SER-JSON: "remotes":1,{{.*}}"serializable":1,"violations":0
// SER-JSON: "remotes":1,{{.*}}"serializable":1,"violations":0
// SER-JSON: "remotes":1,{{.*}}"serializable":1,"violations":0
// SER-JSON-NOT: atomicity-violation
// NONE-NOT: atomicity violation
// NONE: done none
// NONE: vigil: atomic regions (prevent mode, access checks)
// NONE-NEXT: begins 1
// NONE-NEXT: ends 1
// NONE: remotes 0
// NONE: violations 0
