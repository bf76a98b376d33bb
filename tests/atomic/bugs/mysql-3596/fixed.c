/*
 * FIXED version (see bug.c for the bug): thd->proc_info is read once into a local, as
 * later MySQL does (`if ((s = thd->proc_info)) { putc(' ', f); fputs(s, f); }`):
 * the test and the use see the same pointer (the string literals it points
 * to are never freed).
 *
 * Rebuild of MySQL bug 3596 (MySQL 4.0.19), atomicity violation in
 * sql/ha_innodb.cc: innobase_mysql_print_thd().
 *
 * SHOW INNODB STATUS prints, for every transaction, the owning connection's
 * THD, including its current state string:
 *
 *     if (thd->proc_info) {
 *         putc(' ', f);
 *         fputs(thd->proc_info, f);
 *     }
 *
 * without LOCK_thread_count, while the connection thread keeps changing
 * thd->proc_info ("init", "Opening tables", ..., and proc_info = 0 at the
 * end of every command, sql/sql_parse.cc do_command/dispatch_command).
 * Local read (the test), remote write (proc_info = 0), local read (the
 * argument of fputs) -- RWR: fputs(NULL) and the server crashes.
 *
 * The rebuild keeps the function's shape (the other fields it prints are
 * left out) and writes the monitor output to a memory stream.  Instead of
 * letting fputs(NULL) crash, the second read goes through a wrapper that
 * reports the NULL and exits 1 (glibc's fputs would SIGSEGV there).
 *
 * Exit 0 if every monitor pass completed, 1 on the NULL dereference.
 * Optional argv[1]: a scale factor for the number of monitor passes.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NCONN 2        /* connection threads */
#define PASSES 200000  /* SHOW INNODB STATUS passes, times the scale factor */

typedef struct THD {
  unsigned long thread_id;
  unsigned long query_id;
  const char *host;
  const char *user;
  const char *proc_info;
  char query[128];
} THD;

static THD thds[NCONN];
static int stop; /* harness */

/* fputs as the crash site: the original passed NULL to fputs and died. */
static int fputs_or_crash(const char *s, FILE *f) {
  if (s == NULL) {
    fprintf(stderr, "mysql-3596: innobase_mysql_print_thd: fputs(thd->proc_info = NULL) "
                    "-- the server would crash with SIGSEGV\n");
    exit(1);
  }
  return fputs(s, f);
}

/* The buggy function (MySQL 4.0.19). */
static void innobase_mysql_print_thd(FILE *f, void *input_thd) {
  THD *thd = (THD *)input_thd;

  fprintf(f, "MySQL thread id %lu, query id %lu", thd->thread_id, thd->query_id);
  if (thd->host) {
    putc(' ', f);
    fputs(thd->host, f);
  }
  if (thd->user) {
    putc(' ', f);
    fputs(thd->user, f);
  }
  const char *s;
  if ((s = thd->proc_info)) {
    putc(' ', f);
    fputs_or_crash(s, f);
  }
  putc('\n', f);
}

/* A connection thread: dispatch_command() for a stream of queries. */
static void *connection(void *arg) {
  THD *thd = (THD *)arg;
  unsigned long h = 0;
  for (unsigned long q = 0; !__atomic_load_n(&stop, __ATOMIC_RELAXED); q++) {
    thd->query_id = q;
    thd->proc_info = "init";
    snprintf(thd->query, sizeof thd->query, "SELECT c FROM t1 WHERE id = %lu", q % 1000);
    thd->proc_info = "Opening tables";
    for (const char *p = thd->query; *p; p++) h = h * 31 + (unsigned char)*p;
    thd->proc_info = "Sending data";
    for (int i = 0; i < 16; i++) h ^= h >> 7, h *= 0x9e3779b97f4a7c15ul;
    thd->proc_info = "cleaning up";
    thd->proc_info = 0; /* end of command (under LOCK_thread_count) */
    /* reading the next command from the network: idle, proc_info == 0 */
    for (int i = 0; i < 8; i++) h ^= h >> 5, h *= 0xff51afd7ed558ccdul;
  }
  return (void *)h;
}

int main(int argc, char **argv) {
  double scale = argc > 1 ? atof(argv[1]) : 1; /* may be a fraction, e.g. 0.1 */
  if (!(scale > 0)) scale = 1;
  long passes = PASSES * scale;
  if (passes < 1) passes = 1;
  for (int i = 0; i < NCONN; i++) {
    thds[i].thread_id = 10 + (unsigned long)i;
    thds[i].host = "localhost";
    thds[i].user = "root";
  }
  pthread_t th[NCONN];
  for (int i = 0; i < NCONN; i++) pthread_create(&th[i], NULL, connection, &thds[i]);

  /* The monitor thread (here: main) runs SHOW INNODB STATUS repeatedly. */
  char *out = NULL;
  size_t outlen = 0;
  for (long p = 0; p < passes; p++) {
    FILE *f = open_memstream(&out, &outlen);
    for (int i = 0; i < NCONN; i++) innobase_mysql_print_thd(f, &thds[i]);
    fclose(f);
    free(out);
    out = NULL;
  }
  __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
  for (int i = 0; i < NCONN; i++) pthread_join(th[i], NULL);
  return 0;
}
