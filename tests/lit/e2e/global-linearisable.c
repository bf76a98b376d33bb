// Linearisability of a global assertion driven by several threads at once
// (issue 15: global groups take their lock inline, compiler/pass/HooksGlobal.cpp).
//
// Threads run the bound work() over and over; each call takes a(), b() and
// c() or skips them at random (seeded), so some bounds violate the
// assertion, and which ones depends on how the threads interleave: the
// bound is global, open while any thread is inside it, and every thread's
// events count.  Every operation (bound entry, each event, the site, bound
// exit) is bracketed by two tickets of one atomic counter; the violation
// handler, which runs inside vigil's critical section, takes a ticket too
// and names the operation it interrupted.  Inputs/linearise.py then
// searches for one sequential order of all operations that respects
// real time (an operation that ended before another began comes first)
// and in which the assertion's own DFA (from `vigil explain --format json`)
// reports exactly the violations that were reported, with the same
// reasons, at the same operations, in the same order: every violation
// reported is real, none is missed.  With one thread there is only one
// order, and the checker must reject the log with a violation removed or
// one added (it is not vacuous).
//
// RUN: %vigil-cc -O2 %s -o %t -lpthread
// RUN: %vigil-bin explain --format json %s > %t.json
// RUN: env VIGIL_ON_FAILURE=count %t 1 1500 7 > %t.solo
// RUN: %python %S/Inputs/linearise.py %t.json %t.solo | FileCheck %s --check-prefix=SOLO
// RUN: not %python %S/Inputs/linearise.py %t.json %t.solo --drop 1 | FileCheck %s --check-prefix=BAD
// RUN: not %python %S/Inputs/linearise.py %t.json %t.solo --add 1 | FileCheck %s --check-prefix=BAD
// RUN: env VIGIL_ON_FAILURE=count %t 3 3000 11 > %t.three
// RUN: %python %S/Inputs/linearise.py %t.json %t.three | FileCheck %s
// RUN: env VIGIL_ON_FAILURE=count %t 2 4000 12 > %t.two
// RUN: %python %S/Inputs/linearise.py %t.json %t.two | FileCheck %s
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tesla.h>
#include <vigil/runtime.h>

enum { OP_ENTER, OP_EXIT, OP_A, OP_B, OP_C, OP_SITE };
static const char *const kind_names[] = {"enter", "exit", "a", "b", "c", "site"};

#define MAX_THREADS 4
#define OPS_PER_ROUND 6
struct op {
  int kind;
  uint64_t t0, t1;
};
struct violation {
  int thread, op;
  uint64_t t;
  char reason[32];
};

static struct op *ops[MAX_THREADS];
static int nops[MAX_THREADS];
static struct violation *violations;
static atomic_int nviolations;
static atomic_uint_fast64_t ticket;
static _Thread_local int me, cur;

static uint64_t tick(void) { return atomic_fetch_add(&ticket, 1); }

static void op_begin(int kind) {
  cur = nops[me]++;
  ops[me][cur].kind = kind;
  ops[me][cur].t0 = tick();
}
static void op_end(void) { ops[me][cur].t1 = tick(); }

/* Inside vigil's critical section: the operation `cur` of this thread is
 * the one whose step reported. */
static void on_violation(const struct vigil_violation *v, void *ctx) {
  (void)ctx;
  int k = atomic_fetch_add(&nviolations, 1);
  violations[k].thread = me;
  violations[k].op = cur;
  violations[k].t = tick();
  snprintf(violations[k].reason, sizeof violations[k].reason, "%s", v->reason);
}

void a(void) { __asm__ volatile("" ::: "memory"); }
void b(void) { __asm__ volatile("" ::: "memory"); }
void c(void) { __asm__ volatile("" ::: "memory"); }
void work(unsigned x);

__attribute__((noinline)) void site(void) {
  TESLA_GLOBAL(call(work), returnfrom(work),
               TSEQUENCE(call(a), call(b), TESLA_ASSERTION_SITE, call(c)));
}

/* The bound: its entry ran before the first statement, its exit runs
 * after the last. */
__attribute__((noinline)) void work(unsigned x) {
  op_end(); /* the entry */
  if (x & 1) {
    op_begin(OP_A);
    a();
    op_end();
  }
  if (x & 2) {
    op_begin(OP_B);
    b();
    op_end();
  }
  op_begin(OP_SITE);
  site();
  op_end();
  if (x & 4) {
    op_begin(OP_C);
    c();
    op_end();
  }
  op_begin(OP_EXIT);
}

static unsigned rounds;
static uint64_t seed;

static void *thread_main(void *p) {
  me = (int)(intptr_t)p;
  uint64_t s = seed * 0x9e3779b97f4a7c15ull + (uint64_t)me + 1;
  for (unsigned r = 0; r < rounds; r++) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    /* each of a, b, c is taken 7 times in 8: the breaks are seeded */
    unsigned x = ((s & 7) != 0) | ((((s >> 3) & 7) != 0) << 1) | ((((s >> 6) & 7) != 0) << 2);
    op_begin(OP_ENTER);
    work(x);
    op_end(); /* the exit */
    if (((s >> 9) & 3) == 0)
      sched_yield(); /* lets the bound close now and then */
  }
  return 0;
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 3;
  rounds = argc > 2 ? (unsigned)atoi(argv[2]) : 2000;
  seed = argc > 3 ? strtoull(argv[3], 0, 10) : 1;
  if (threads < 1 || threads > MAX_THREADS)
    return 2;
  for (int t = 0; t < threads; t++)
    ops[t] = calloc((size_t)rounds * OPS_PER_ROUND, sizeof(struct op));
  violations = calloc((size_t)threads * rounds * 2 + 16, sizeof *violations);
  vigil_set_handler(on_violation, 0);
  pthread_t th[MAX_THREADS];
  for (int t = 0; t < threads; t++)
    pthread_create(&th[t], 0, thread_main, (void *)(intptr_t)t);
  for (int t = 0; t < threads; t++)
    pthread_join(th[t], 0);
  long total = 0;
  for (int t = 0; t < threads; t++)
    for (int i = 0; i < nops[t]; i++, total++)
      printf("op %d %d %s %llu %llu\n", t, i, kind_names[ops[t][i].kind],
             (unsigned long long)ops[t][i].t0, (unsigned long long)ops[t][i].t1);
  for (int k = 0; k < nviolations; k++)
    printf("violation %d %d %llu %s\n", violations[k].thread, violations[k].op,
           (unsigned long long)violations[k].t, violations[k].reason);
  struct vigil_totals tot;
  vigil_get_totals(&tot);
  printf("totals ops %ld runtime_events %llu failures %llu\n", total,
         (unsigned long long)tot.events, (unsigned long long)tot.failures);
  return 0;
}
// SOLO: linearisable: 1 threads, {{[0-9]+}} operations, {{[1-9][0-9]*}} violations
// SOLO-SAME: missing-after-site {{[1-9][0-9]*}}, missing-before-site {{[1-9][0-9]*}}
// BAD: not linearisable
// CHECK: linearisable: {{[23]}} threads, {{[0-9]+}} operations, {{[1-9][0-9]*}} violations
