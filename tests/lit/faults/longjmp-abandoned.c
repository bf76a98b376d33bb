// Bounds abandoned by longjmp and siglongjmp, and nestings that must not be
// taken for abandoned ones (docs/faults.md, "longjmp"; runtime/abandon.c).
// Each mode ends with request(0), which never authorises: the violation
// must be reported whatever came before.  Built twice: inline entry hooks,
// and every hook a runtime call (VIGIL_FAST_PATH=0).
// RUN: %vigil-cc -O1 %s -o %t
// RUN: env VIGIL_FAST_PATH=0 %vigil-cc -O1 %s -o %t.slow
// RUN: env VIGIL_ON_FAILURE=log VIGIL_BACKTRACE=0 VIGIL_STATS=1 %t deeper 2>&1 | FileCheck %s --check-prefixes=CHECK,DEEPER
// RUN: env VIGIL_ON_FAILURE=log VIGIL_BACKTRACE=0 VIGIL_STATS=1 %t.slow deeper 2>&1 | FileCheck %s --check-prefixes=CHECK,DEEPER
// RUN: env VIGIL_ON_FAILURE=log VIGIL_BACKTRACE=0 VIGIL_STATS=1 %t recursion 2>&1 | FileCheck %s --check-prefixes=CHECK,RECURSION
// RUN: env VIGIL_ON_FAILURE=log VIGIL_BACKTRACE=0 VIGIL_STATS=1 %t.slow recursion 2>&1 | FileCheck %s --check-prefixes=CHECK,RECURSION
// RUN: env VIGIL_ON_FAILURE=log VIGIL_BACKTRACE=0 VIGIL_STATS=1 %t altstack-nest 2>&1 | FileCheck %s --check-prefixes=CHECK,NEST
// RUN: env VIGIL_ON_FAILURE=log VIGIL_BACKTRACE=0 VIGIL_STATS=1 %t.slow altstack-nest 2>&1 | FileCheck %s --check-prefixes=CHECK,NEST
// RUN: env VIGIL_ON_FAILURE=log VIGIL_BACKTRACE=0 VIGIL_STATS=1 %t altstack-jump 2>&1 | FileCheck %s --check-prefixes=CHECK,JUMP
// RUN: env VIGIL_ON_FAILURE=log VIGIL_BACKTRACE=0 VIGIL_STATS=1 %t.slow altstack-jump 2>&1 | FileCheck %s --check-prefixes=CHECK,JUMP
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tesla.h>

static sigjmp_buf env;
static int depth_to_jump, jump_in_handler;

void authorise(void) {}
__attribute__((noinline)) void bail(void) { siglongjmp(env, 1); }
int request(int auth, int depth);
void handle(void) { TESLA_WITHIN(request, previously(call(authorise))); }

/* depth > 0: recurse (each call a nested bound); at depth_to_jump, leave
 * every level at once; -1: raise SIGUSR1 inside the bound. */
int request(int auth, int depth) {
  if (auth)
    authorise();
  if (depth == -1)
    raise(SIGUSR1);
  else if (depth > 0)
    request(auth, depth - 1);
  else if (depth_to_jump)
    bail();
  handle();
  return 0;
}

/* Frames of their own, so that the next request() runs below the frame of
 * the abandoned one, which they overwrite. */
__attribute__((noinline)) int wrapper2(int auth) { return request(auth, 0) + 1; }
__attribute__((noinline)) int wrapper1(int auth) { return wrapper2(auth) + 1; }

static void on_signal(int s) {
  (void)s;
  if (jump_in_handler) {
    authorise();
    depth_to_jump = 1;
    request(1, 0); /* a bound entered on the alternate stack, then left */
  }
  request(1, 0); /* nests in the interrupted bound */
}

static void alternate_stack(void) {
  stack_t ss = {.ss_sp = malloc(1 << 16), .ss_size = 1 << 16};
  struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_ONSTACK};
  if (!ss.ss_sp || sigaltstack(&ss, NULL) || sigaction(SIGUSR1, &sa, NULL))
    abort();
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  if (!strcmp(mode, "deeper")) {
    depth_to_jump = 1;
    if (!sigsetjmp(env, 1))
      request(1, 0); /* authorise, then jump out */
    depth_to_jump = 0;
    wrapper1(0);
  } else if (!strcmp(mode, "recursion")) {
    request(1, 4); /* five nested bounds, closed normally */
    depth_to_jump = 1;
    if (!sigsetjmp(env, 1))
      request(1, 4); /* leaves five nested bounds at once */
    depth_to_jump = 0;
    for (int i = 0; i < 100; i++)
      request(1, 2);
    request(0, 0);
  } else if (!strcmp(mode, "altstack-nest")) {
    alternate_stack();
    request(0, -1); /* the handler's nested bound authorises this one */
    request(0, 0);
  } else if (!strcmp(mode, "altstack-jump")) {
    alternate_stack();
    jump_in_handler = 1;
    if (!sigsetjmp(env, 1))
      raise(SIGUSR1); /* outside any bound */
    depth_to_jump = jump_in_handler = 0;
    request(0, 0);
  }
  fputs("done\n", stderr);
  return 0;
}
// One violation, from the last request(0): the assertion's line, column 21.
// CHECK: vigil: assertion failed at {{.*}}longjmp-abandoned.c:[[#LINE:]]:21
// CHECK: (missing-before-site)
// CHECK: done
// CHECK-NOT: assertion failed
// Columns: instances, slow events, passes, failures, dropped.
// DEEPER: longjmp-abandoned.c:[[#LINE]]:21{{ +}}2{{ +}}{{[0-9]+}}{{ +}}0{{ +}}1{{ +}}1
// DEEPER: vigil: 1 bound abandoned
// 2 + 100 outermost bounds pass, the abandoned one is dropped.
// RECURSION: longjmp-abandoned.c:[[#LINE]]:21{{ +}}103{{ +}}{{[0-9]+}}{{ +}}101{{ +}}1{{ +}}1
// RECURSION: vigil: 1 bound abandoned
// The handler's bound nests: the interrupted bound passes, nothing dropped.
// NEST: longjmp-abandoned.c:[[#LINE]]:21{{ +}}2{{ +}}{{[0-9]+}}{{ +}}1{{ +}}1{{ +}}0
// NEST-NOT: abandoned
// JUMP: longjmp-abandoned.c:[[#LINE]]:21{{ +}}2{{ +}}{{[0-9]+}}{{ +}}0{{ +}}1{{ +}}1
// JUMP: vigil: 1 bound abandoned
