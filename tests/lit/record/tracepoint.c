// vigil record --tracepoint, of the command only: the program closes fds
// 1000..1004 (EBADF, but sys_enter_close fires) while another process (the
// same program in a loop) keeps closing fd 1000; the stream has exactly the
// command's five, in order, with the fd field's value, and exactly one
// sched_process_exit: the command's, whose pid field is the command's pid.
// Common fields are not arguments; arrays (comm) are skipped with a warning.
// REQUIRES: bpf-record
// RUN: %clang-plain -O1 -g %s -o %t
// RUN: %python %S/Inputs/noise.py %t loop -- %python %S/Inputs/status.py 4 %vigil-bin record --tracepoint syscalls:sys_enter_close --tracepoint sched:sched_process_exit --stream file:%t.bson -- %t 5 2> %t.err
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: %check-stream %t.bson --hello --strict --tids --values syscalls:sys_enter_close/tracepoint --values sched:sched_process_exit/tracepoint > %t.out
// RUN: FileCheck %s --implicit-check-not='tracepoint 3 1000' < %t.out
//
// Descendants are followed: a forked child's events are recorded, as its
// own thread.
// RUN: %python %S/Inputs/status.py 4 %vigil-bin record --tracepoint syscalls:sys_enter_close --tracepoint sched:sched_process_exit --stream file:%t.fork.bson -- %t 2 fork 2> /dev/null
// RUN: %check-stream %t.fork.bson --strict --hello --tids --values syscalls:sys_enter_close/tracepoint > %t.fork.out
// RUN: FileCheck %s --check-prefix=FORK < %t.fork.out
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (!strcmp(argv[1], "loop")) { /* the noise: never recorded */
    struct timespec ms = {0, 1000000};
    for (;;) {
      close(1000);
      nanosleep(&ms, 0);
    }
  }
  int n = atoi(argv[1]);
  pid_t child = argc > 2 ? fork() : -1;
  for (int i = 0; i < n; i++)
    close((child == 0 ? 2000 : 1000) + i);
  if (child == 0)
    _exit(0);
  if (child > 0)
    waitpid(child, 0, 0);
  return 4;
}
// ERR: vigil record: warning: sched:sched_process_exit: fields not recorded {{.*}}: comm (array)
// ERR: vigil record: 0 functions, 2 tracepoints; running {{.*}}tracepoint.c.tmp (pid {{[0-9]+}}); streaming to file:
// CHECK: threads 1 batches {{[0-9]+}} events {{[0-9]+}} lost 0 produced {{[0-9]+}}
// CHECK-NEXT: event sched:sched_process_exit/tracepoint 1
// CHECK-NEXT: event syscalls:sys_enter_close/tracepoint {{[0-9]+}}
// CHECK-NEXT: hello program {{.*}}tracepoint.c.tmp pid [[PID:[0-9]+]] mode discard
// CHECK-NEXT: declare syscalls:sys_enter_close/tracepoint args i64,u64 names __syscall_nr,fd
// CHECK-NEXT: declare sched:sched_process_exit/tracepoint args i64,i64,u64 names pid,prio,group_dead
// CHECK: value syscalls:sys_enter_close/tracepoint 3 1000
// CHECK-NEXT: value syscalls:sys_enter_close/tracepoint 3 1001
// CHECK-NEXT: value syscalls:sys_enter_close/tracepoint 3 1002
// CHECK-NEXT: value syscalls:sys_enter_close/tracepoint 3 1003
// CHECK-NEXT: value syscalls:sys_enter_close/tracepoint 3 1004
// CHECK-NEXT: value sched:sched_process_exit/tracepoint [[PID]] {{[0-9]+}} 1
// CHECK-NEXT: strict ok
// CHECK-NEXT: tid [[PID]] produced {{[0-9]+}} lost 0
// CHECK-NOT: tid
// FORK: threads 2 batches {{[0-9]+}} events {{[0-9]+}} lost 0
// FORK-NEXT: event sched:sched_process_exit/tracepoint 2
// FORK: hello program {{.*}} pid [[PID:[0-9]+]] mode discard
// FORK-DAG: value syscalls:sys_enter_close/tracepoint 3 1000
// FORK-DAG: value syscalls:sys_enter_close/tracepoint 3 1001
// FORK-DAG: value syscalls:sys_enter_close/tracepoint 3 2000
// FORK-DAG: value syscalls:sys_enter_close/tracepoint 3 2001
// FORK: strict ok
// FORK-DAG: tid [[PID]] produced
