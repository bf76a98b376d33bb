// Struct automata and locality: `struct session` is followed per thread
// (__tesla_perthread: each thread has its own table of objects), `struct
// job` globally (__tesla_global: one locked table).  Both lifecycles are
// AUTH, ACTIVE, DONE between begin and end.  When one thread begins an
// object, a second thread drives it and the first ends it, the global
// automaton sees the whole life; the per-thread one sees nothing of the
// second thread's stores and reports at the end.
// RUN: %vigil-cc -O1 %s -o %t -lpthread
// RUN: %t same-thread 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t many 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: %t handoff-job 2>&1 | FileCheck %s --check-prefix=OK --implicit-check-not="assertion failed"
// RUN: env VIGIL_ON_FAILURE=log %t handoff-session 2>&1 | FileCheck %s --check-prefix=HANDOFF
// RUN: env VIGIL_ON_FAILURE=log %t many-bad 2>&1 | FileCheck %s --check-prefix=MANYBAD
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <tesla-macros.h>

enum { S_NEW, S_AUTH, S_ACTIVE, S_DONE };

struct session {
  int state;
};
struct job {
  int state;
};

void session_begin(struct session *s);
void session_end(struct session *s);
void job_begin(struct job *j);
void job_end(struct job *j);

automaton(session_life, struct session *s) {
  s->state = S_AUTH;
  s->state = S_ACTIVE;
  s->state = S_DONE;
  tesla_done;
}
automaton(job_life, struct job *j) {
  j->state = S_AUTH;
  j->state = S_ACTIVE;
  j->state = S_DONE;
  tesla_done;
}

TESLA_STRUCT_AUTOMATON(struct session *s, session_life, __tesla_perthread,
                       call(session_begin(s)), returnfrom(session_end(s)));
TESLA_STRUCT_AUTOMATON(struct job *j, job_life, __tesla_global,
                       call(job_begin(j)), returnfrom(job_end(j)));

void session_begin(struct session *s) { s->state = S_NEW; }
void session_end(struct session *s) { (void)s; }
void session_set(struct session *s, int st) { s->state = st; }
void job_begin(struct job *j) { j->state = S_NEW; }
void job_end(struct job *j) { (void)j; }
void job_set(struct job *j, int st) { j->state = st; }

static struct session the_session;
static struct job the_job;

static void *drive_session(void *p) {
  (void)p;
  session_set(&the_session, S_AUTH);
  session_set(&the_session, S_ACTIVE);
  session_set(&the_session, S_DONE);
  return 0;
}
static void *drive_job(void *p) {
  (void)p;
  job_set(&the_job, S_AUTH);
  job_set(&the_job, S_ACTIVE);
  job_set(&the_job, S_DONE);
  return 0;
}

static int bad_thread = -1;

static void *worker(void *arg) {
  int me = (int)(long)arg;
  for (int i = 0; i < 300; i++) {
    struct session s;
    session_begin(&s);
    session_set(&s, S_AUTH);
    if (!(me == bad_thread && i == 100))
      session_set(&s, S_ACTIVE);
    else
      fprintf(stderr, "skipping ACTIVE\n");
    session_set(&s, S_DONE);
    session_end(&s);
  }
  return 0;
}

int main(int argc, char **argv) {
  const char *m = argc > 1 ? argv[1] : "same-thread";
  pthread_t t;
  if (!strcmp(m, "same-thread")) {
    session_begin(&the_session);
    drive_session(0);
    session_end(&the_session);
    job_begin(&the_job);
    drive_job(0);
    job_end(&the_job);
  }
  if (!strcmp(m, "handoff-job")) {
    job_begin(&the_job);
    pthread_create(&t, 0, drive_job, 0);
    pthread_join(t, 0);
    job_end(&the_job);
  }
  if (!strcmp(m, "handoff-session")) {
    session_begin(&the_session);
    pthread_create(&t, 0, drive_session, 0);
    pthread_join(t, 0);
    fprintf(stderr, "ending\n");
    session_end(&the_session);
  }
  if (!strcmp(m, "many") || !strcmp(m, "many-bad")) {
    pthread_t ts[4];
    if (!strcmp(m, "many-bad"))
      bad_thread = 1;
    for (long i = 0; i < 4; i++)
      pthread_create(&ts[i], 0, worker, (void *)i);
    for (int i = 0; i < 4; i++)
      pthread_join(ts[i], 0);
  }
  fprintf(stderr, "done\n");
  return 0;
}
// OK: done
//
// HANDOFF: ending
// HANDOFF-NEXT: vigil: assertion failed at {{.*}}tesla-lang-struct-threads.c:
// HANDOFF: (missing-after-site)
// HANDOFF: event: s->state = S_AUTH
// HANDOFF-NOT: assertion failed
// HANDOFF: done
//
// MANYBAD: skipping ACTIVE
// MANYBAD-NEXT: vigil: assertion failed at {{.*}}tesla-lang-struct-threads.c:
// MANYBAD: (unexpected-event)
// MANYBAD: event: s->state = S_DONE
// MANYBAD-NOT: assertion failed
// MANYBAD: done
