// The TCP state machine of TESLA's smoketest demo (demos/smoketest/tcp.h),
// restated: every TCP control block follows tcp_lifecycle from tcp_init()
// to the return of tcp_free(), through named sub-automata (an active close
// and an established connection), exclusive choices, an optional step,
// repeated events (CLOSED, TIME_WAIT) and a call event.  Global locality:
// one locked table of connections, also under threads.
// RUN: %vigil-cc -O1 %s -o %t -lpthread
// RUN: %t passive 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t active 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t simultaneous 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t listen-only 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t listen-close 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t never-opened 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t interleaved 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t threads 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t skip-fin-wait 2>&1 | FileCheck %s --check-prefix=SKIP
// RUN: env VIGIL_ON_FAILURE=log %t free-established 2>&1 | FileCheck %s --check-prefix=FREE
// RUN: env VIGIL_ON_FAILURE=log %t interleaved-bad 2>&1 | FileCheck %s --check-prefix=ONE
// RUN: env VIGIL_ON_FAILURE=log %t threads-bad 2>&1 | FileCheck %s --check-prefix=ONE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <tesla-macros.h>

enum tcp_state {
  TCPS_CLOSED, TCPS_LISTEN, TCPS_SYN_SENT, TCPS_SYN_RECEIVED, TCPS_ESTABLISHED,
  TCPS_CLOSE_WAIT, TCPS_FIN_WAIT_1, TCPS_CLOSING, TCPS_LAST_ACK,
  TCPS_FIN_WAIT_2, TCPS_TIME_WAIT
};

struct tcpcb {
  unsigned snd_una, snd_nxt, rcv_nxt;
  int t_state;
  unsigned t_flags;
};

void tcp_init(struct tcpcb *tp);
void tcp_free(struct tcpcb *tp);

/* We close first: FIN_WAIT_1, then either FIN_WAIT_2 or CLOSING (both
 * sides closed at once), TIME_WAIT, CLOSED. */
automaton(tcp_active_close, struct tcpcb *tp) {
  tp->t_state = TCPS_FIN_WAIT_1;
  TSEQUENCE(tp->t_state = TCPS_FIN_WAIT_2, tp->t_state = TCPS_TIME_WAIT) ||
      TSEQUENCE(tp->t_state = TCPS_CLOSING, tp->t_state = TCPS_TIME_WAIT);
  tp->t_state = TCPS_CLOSED;
  tesla_done;
}

/* Established, then closed by us or by the peer (CLOSE_WAIT, LAST_ACK). */
automaton(tcp_established, struct tcpcb *tp) {
  tp->t_state = TCPS_ESTABLISHED;
  tcp_active_close(tp) ||
      TSEQUENCE(tp->t_state = TCPS_CLOSE_WAIT, tp->t_state = TCPS_LAST_ACK,
                tp->t_state = TCPS_CLOSED);
  tesla_done;
}

automaton(tcp_lifecycle, struct tcpcb *tp) {
  tp->t_state = TCPS_CLOSED;
  TSEQUENCE(tp->t_state = TCPS_LISTEN, optional(tp->t_state = TCPS_CLOSED),
            call(tcp_free(tp))) ||
      TSEQUENCE(tp->t_state = TCPS_LISTEN, tp->t_state = TCPS_SYN_RECEIVED,
                tcp_established(tp), call(tcp_free(tp))) ||
      TSEQUENCE(tp->t_state = TCPS_SYN_SENT, tcp_established(tp),
                call(tcp_free(tp))) ||
      call(tcp_free(tp));
  tesla_done;
}

TESLA_STRUCT_AUTOMATON(struct tcpcb *tp, tcp_lifecycle, __tesla_global,
                       call(tcp_init(tp)), returnfrom(tcp_free(tp)));

void tcp_init(struct tcpcb *tp) {
  memset(tp, 0, sizeof *tp);
  tp->t_state = TCPS_CLOSED; /* the automaton's first step */
}
void tcp_free(struct tcpcb *tp) { tp->t_flags = 0; }
void tcp_set_state(struct tcpcb *tp, int state) { tp->t_state = state; }

static void go(struct tcpcb *tp, const int *states, int n) {
  for (int i = 0; i < n; i++)
    tcp_set_state(tp, states[i]);
}

static const int passive[] = {TCPS_LISTEN, TCPS_SYN_RECEIVED, TCPS_ESTABLISHED,
                              TCPS_CLOSE_WAIT, TCPS_LAST_ACK, TCPS_CLOSED};
static const int active[] = {TCPS_SYN_SENT, TCPS_ESTABLISHED, TCPS_FIN_WAIT_1,
                             TCPS_FIN_WAIT_2, TCPS_TIME_WAIT, TCPS_CLOSED};
static const int simultaneous[] = {TCPS_SYN_SENT, TCPS_ESTABLISHED, TCPS_FIN_WAIT_1,
                                   TCPS_CLOSING, TCPS_TIME_WAIT, TCPS_CLOSED};
static const int skip_fin_wait[] = {TCPS_SYN_SENT, TCPS_ESTABLISHED, TCPS_TIME_WAIT,
                                    TCPS_CLOSED};
#define GO(tp, a) go(tp, a, (int)(sizeof a / sizeof a[0]))

static int bad_thread = -1;

static void *connections(void *arg) {
  int me = (int)(long)arg;
  for (int i = 0; i < 500; i++) {
    struct tcpcb tcb;
    tcp_init(&tcb);
    if (me == bad_thread && i == 250) {
      fprintf(stderr, "bad connection\n");
      GO(&tcb, skip_fin_wait);
    } else if ((me + i) % 2) {
      GO(&tcb, passive);
    } else {
      GO(&tcb, active);
    }
    tcp_free(&tcb);
  }
  return 0;
}

static void run_threads(void) {
  pthread_t t[4];
  for (long i = 0; i < 4; i++)
    pthread_create(&t[i], 0, connections, (void *)i);
  for (int i = 0; i < 4; i++)
    pthread_join(t[i], 0);
}

int main(int argc, char **argv) {
  struct tcpcb a, b, never;
  const char *m = argc > 1 ? argv[1] : "passive";
  if (!strcmp(m, "passive")) { tcp_init(&a); GO(&a, passive); tcp_free(&a); }
  if (!strcmp(m, "active")) { tcp_init(&a); GO(&a, active); tcp_free(&a); }
  if (!strcmp(m, "simultaneous")) { tcp_init(&a); GO(&a, simultaneous); tcp_free(&a); }
  if (!strcmp(m, "listen-only")) {
    tcp_init(&a);
    tcp_set_state(&a, TCPS_LISTEN);
    tcp_free(&a);
  }
  if (!strcmp(m, "listen-close")) {
    tcp_init(&a);
    tcp_set_state(&a, TCPS_LISTEN);
    tcp_set_state(&a, TCPS_CLOSED);
    tcp_free(&a);
  }
  if (!strcmp(m, "never-opened")) { tcp_init(&a); tcp_free(&a); }
  if (!strcmp(m, "interleaved") || !strcmp(m, "interleaved-bad")) {
    /* a: passive open and close; b: active open and close, one step
     * behind; interleaved-bad: b skips TIME_WAIT. */
    int bad = !strcmp(m, "interleaved-bad");
    tcp_init(&a);
    tcp_init(&b);
    tcp_set_state(&never, TCPS_TIME_WAIT); /* never initialised: ignored */
    for (int i = 0; i < 6; i++) {
      tcp_set_state(&a, passive[i]);
      if (bad && i == 4) {
        fprintf(stderr, "bad connection\n");
        tcp_set_state(&b, TCPS_CLOSED);
      } else {
        tcp_set_state(&b, active[i]);
      }
    }
    tcp_free(&b);
    tcp_free(&a);
  }
  if (!strcmp(m, "threads")) run_threads();
  if (!strcmp(m, "threads-bad")) { bad_thread = 2; run_threads(); }
  if (!strcmp(m, "skip-fin-wait")) {
    tcp_init(&a);
    fprintf(stderr, "bad connection\n");
    GO(&a, skip_fin_wait);
    tcp_free(&a);
  }
  if (!strcmp(m, "free-established")) {
    tcp_init(&a);
    tcp_set_state(&a, TCPS_SYN_SENT);
    tcp_set_state(&a, TCPS_ESTABLISHED);
    fprintf(stderr, "bad connection\n");
    tcp_free(&a);
  }
  fprintf(stderr, "done\n");
  return 0;
}
// OK: done
//
// ESTABLISHED straight to TIME_WAIT.
// SKIP: bad connection
// SKIP-NEXT: vigil: assertion failed at {{.*}}tesla-tcp.c:
// SKIP: (unexpected-event)
// SKIP: event: tp->t_state = TCPS_TIME_WAIT
// SKIP-NOT: assertion failed
// SKIP: done
//
// FREE: bad connection
// FREE-NEXT: vigil: assertion failed at {{.*}}tesla-tcp.c:
// FREE: (unexpected-event)
// FREE: event: call(tcp_free(tp))
// FREE-NOT: assertion failed
// FREE: done
//
// ONE: bad connection
// ONE: vigil: assertion failed at {{.*}}tesla-tcp.c:
// ONE: (unexpected-event)
// ONE-NOT: assertion failed
// ONE: done
