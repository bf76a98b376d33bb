// The watchpoint detector's edges: more concurrent ARs than debug
// registers (the rest counted as unmonitored; a later begin on an address
// still armed reuses it with no system call); a program's own SIGTRAP
// handler installed before vigil's (chained) or after it (taken back at
// the next arm, then chained); a fork child with watchpoints of its own;
// 1000 threads created after init, the last one's remote access trapped.
// (-u vg_wregs: links the backend from libvigil.a; vigil-cc links it whole)
// RUN: %atomic-cc %s -o %t -Wl,-u,vg_wregs %atomic-libs
// RUN: env VIGIL_STATS=1 %t registers 2>&1 | FileCheck %s --check-prefix=REGS
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ATOMIC_TIMEOUT_MS=20000 %t before 2>&1 | FileCheck %s --check-prefix=SIGTRAP
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ATOMIC_TIMEOUT_MS=20000 %t after 2>&1 | FileCheck %s --check-prefix=SIGTRAP
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ATOMIC_TIMEOUT_MS=20000 %t fork 2>&1 | FileCheck %s --check-prefix=FORK
// RUN: env VIGIL_ON_FAILURE=log VIGIL_ATOMIC_TIMEOUT_MS=20000 %t threads 2>&1 | FileCheck %s --check-prefix=THREADS
#include <sys/wait.h>
#include <unistd.h>

#include "watch.h"

static pthread_barrier_t bar;
static void *slot_user(void *arg) {
  long i = (long)arg;
  __vigil_ar_begin(AR_SLOTS, &v[i], 0);
  pthread_barrier_wait(&bar); /* all six hold their AR at once */
  pthread_barrier_wait(&bar);
  __vigil_ar_end(END_SLOTS, &v[i]);
  return NULL;
}
static int registers(void) {
  pthread_t t[6];
  pthread_barrier_init(&bar, NULL, 7);
  for (long i = 0; i < 6; i++)
    pthread_create(&t[i], NULL, slot_user, (void *)i);
  pthread_barrier_wait(&bar);
  pthread_barrier_wait(&bar);
  for (int i = 0; i < 6; i++)
    pthread_join(t[i], NULL);
  for (int k = 0; k < 3; k++) { /* armed, released lazily, then reused */
    __vigil_ar_begin(AR_SLOTS, &v[7], 0);
    __vigil_ar_end(END_SLOTS, &v[7]);
  }
  return 0;
}

static atomic_int program_traps;
static void program_handler(int sig) {
  (void)sig;
  atomic_fetch_add(&program_traps, 1);
}
static void own_handler(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = program_handler;
  sigaction(SIGTRAP, &sa, NULL);
}

static void *remote_store(void *arg) {
  store_x((int)(long)arg);
  return NULL;
}
/* R, remote W, W: prevented means the remote's value is the last. */
static void prevented_write(void) {
  pthread_t t;
  x = 1;
  __vigil_ar_begin(AR_READER, &x, 0);
  int seen = load_x();
  pthread_create(&t, NULL, remote_store, (void *)5L);
  await_sleepers(1);
  printf("x inside the AR: %d\n", load_x());
  store_x(seen + 1);
  __vigil_ar_end(END_R_W, &x);
  pthread_join(t, NULL);
  printf("final x: %d\n", load_x());
}

static void *idle(void *arg) {
  pthread_barrier_wait(arg);
  return NULL;
}
static int threads(void) {
  enum { N = 1000 };
  static pthread_t t[N];
  pthread_barrier_t done;
  pthread_barrier_init(&done, NULL, N + 1);
  double t0 = now_ms();
  for (int i = 0; i < N; i++)
    if (pthread_create(&t[i], NULL, idle, &done)) {
      printf("pthread_create %d failed\n", i);
      return 1;
    }
  fprintf(stderr, "created %d threads: %.1f us each\n", N, (now_ms() - t0) * 1e3 / N);
  t0 = now_ms();
  prevented_write(); /* the arm reaches all 1000 children */
  fprintf(stderr, "one prevented write with %d threads alive: %.2f ms\n", N, now_ms() - t0);
  pthread_barrier_wait(&done);
  for (int i = 0; i < N; i++)
    pthread_join(t[i], NULL);
  printf("joined %d threads\n", N);
  return 0;
}

int main(int argc, char **argv) {
  const char *how = argc > 1 ? argv[1] : "registers";
  if (!strcmp(how, "before"))
    own_handler();
  watch_register();
  if (!strcmp(how, "registers"))
    return registers();
  if (!strcmp(how, "threads"))
    return threads();
  if (!strcmp(how, "after"))
    own_handler(); /* replaces vigil's: taken back at the next arm */
  if (!strcmp(how, "before") || !strcmp(how, "after")) {
    raise(SIGTRAP);
    printf("program traps: %d\n", atomic_load(&program_traps));
    prevented_write();
    raise(SIGTRAP);
    printf("program traps: %d\n", atomic_load(&program_traps));
    return 0;
  }
  if (!strcmp(how, "fork")) {
    pid_t pid = fork();
    if (pid == 0) {
      printf("child:\n");
      prevented_write();
      _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    printf("parent:\n");
    prevented_write();
  }
  return 0;
}
// REGS: unmonitored_no_watchpoint 2
// REGS: vigil: 2 atomic regions not monitored
// REGS: vigil: atomic watchpoints (4 registers): arms (ioctl) {{[4-6]}}, reuses (no syscall) {{[2-9]}},
// SIGTRAP: program traps: 1
// SIGTRAP: x inside the AR: 1
// SIGTRAP: verdict: prevented
// SIGTRAP: final x: 5
// SIGTRAP: program traps: 2
// FORK: child:
// FORK-NEXT: x inside the AR: 1
// FORK: verdict: prevented
// FORK: final x: 5
// FORK: parent:
// FORK-NEXT: x inside the AR: 1
// FORK: verdict: prevented
// FORK: final x: 5
// THREADS: created 1000 threads
// THREADS: x inside the AR: 1
// THREADS: verdict: prevented
// THREADS: final x: 5
// THREADS: joined 1000 threads
