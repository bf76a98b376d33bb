// fork() inside a bound: the child gets a copy of the runtime's state (the
// bound is open, the events before the fork are remembered) and finishes
// the bound on its own.  Its violation is reported once, by the child, with
// the child's pid and thread id; the parent's verdict is its own
// (docs/faults.md, "fork").
// RUN: %vigil-cc -O1 %s -o %t
// RUN: rm -f %t.jsonl
// RUN: env VIGIL_ON_FAILURE=log VIGIL_REPORT=%t.jsonl VIGIL_BACKTRACE=0 %t split >%t.out 2>%t.err
// RUN: %python -c "import json,sys; [print('report pid', json.loads(l)['pid'], 'thread', json.loads(l)['thread']) for l in open(sys.argv[1])]" %t.jsonl >%t.pids
// RUN: cat %t.out %t.pids %t.err | FileCheck %s --check-prefix=SPLIT
// Events before the fork count in both processes: both pass.
// RUN: env VIGIL_STATS=1 %t before 2>&1 | FileCheck %s --check-prefix=BEFORE
// Abort mode: the child aborts, the parent is unaffected.
// RUN: env VIGIL_BACKTRACE=0 %t split 2>&1 | FileCheck %s --check-prefix=ABORT
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <tesla.h>

void authorise(void) {}
int request(int mode);
void handle(void) { TESLA_WITHIN(request, previously(call(authorise))); }

static const char *mode;

int request(int before) {
  if (before)
    authorise();
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    handle(); /* "split": the child never authorised */
    return 0; /* the child leaves the bound here */
  }
  if (!before)
    authorise();
  handle(); /* the parent authorised: passes */
  int status;
  waitpid(pid, &status, 0);
  printf("parent %d: child %d %s\n", (int)getpid(), (int)pid,
         WIFSIGNALED(status) ? "killed by a signal" : "exited");
  fflush(stdout);
  return 1;
}

int main(int argc, char **argv) {
  mode = argv[1];
  int parent = request(!strcmp(mode, "before"));
  fprintf(stderr, "%s %d: done\n", parent ? "parent" : "child", (int)getpid());
  return 0;
}
// SPLIT: parent [[PARENT:[0-9]+]]: child [[CHILD:[0-9]+]] exited
// SPLIT-NEXT: report pid [[CHILD]] thread [[CHILD]]
// SPLIT-NOT: report pid
// SPLIT: vigil: assertion failed at {{.*}}fork.c:{{[0-9]+}}:21
// SPLIT: (missing-before-site)
// SPLIT: thread: [[CHILD]] (
// SPLIT-NOT: vigil: assertion failed
// SPLIT: child [[CHILD]]: done
// SPLIT-NOT: vigil: assertion failed
// SPLIT: parent [[PARENT]]: done
// SPLIT-NOT: vigil
// BEFORE-NOT: assertion failed
// BEFORE: child {{[0-9]+}}: done
// BEFORE: vigil: statistics (1 assertion
// BEFORE-NEXT: assertion
// BEFORE-NEXT: fork.c:{{[0-9]+}}:21{{ +}}1{{ +}}{{[0-9]+}}{{ +}}1{{ +}}0{{ +}}0
// BEFORE: parent {{[0-9]+}}: done
// BEFORE: vigil: statistics (1 assertion
// BEFORE-NEXT: assertion
// BEFORE-NEXT: fork.c:{{[0-9]+}}:21{{ +}}1{{ +}}{{[0-9]+}}{{ +}}1{{ +}}0{{ +}}0
// ABORT: vigil: assertion failed at {{.*}}fork.c:{{[0-9]+}}:21
// ABORT: vigil: aborting
// ABORT: parent {{[0-9]+}}: child {{[0-9]+}} killed by a signal
// ABORT-NOT: vigil
// ABORT: parent {{[0-9]+}}: done
