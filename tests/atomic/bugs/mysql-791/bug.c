/*
 * Rebuild of MySQL bug 791 (MySQL 4.0.12), atomicity violation on
 * MYSQL_LOG::log_type, sql/log.cc: MYSQL_LOG::new_file().
 *
 * Rotating the binary log (FLUSH LOGS, or MYSQL_LOG::write() noticing that
 * the file reached max_binlog_size; both happen here) runs new_file(), which calls close() -- log_type = LOG_CLOSED -- and then
 * open() -- log_type = save_log_type.  Meanwhile a connection thread in
 * mysql_insert() (sql/sql_insert.cc) tests mysql_bin_log.is_open(), i.e.
 * log_type != LOG_CLOSED, without LOCK_log, sees the intermediate
 * LOG_CLOSED and skips writing the query to the binlog.  Local write,
 * remote read, local write (WRW): the insert is in the table but not in the
 * binary log, so replicas and point-in-time recovery lose it.
 *
 * Faithfulness: close() and open() are separate member functions in the
 * original; their log_type stores are written out in new_file() here so
 * that both stores are in one function (the pass pairs accesses within a
 * function).  The work between them is the original's kind of work:
 * flushing and freeing the IO_CACHE, making the next file name, allocating
 * the new cache and writing the binlog header.  As in the original,
 * new_file() holds LOCK_log across close()+open(); only the reader is
 * unlocked.  NOTE: an analysis that drops access pairs with a lock held
 * across both (the paper's ARs do not) has no atomic region here.
 *
 * Exit 0 if every inserted row was written to the binlog, 1 otherwise.
 * Optional argv[1]: a scale factor for the number of inserts.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NCONN 2
#define INSERTS 100000 /* per connection, times the scale factor */
#define IO_SIZE 8192

enum enum_log_type { LOG_CLOSED, LOG_NORMAL, LOG_NEW, LOG_BIN };

typedef struct {
  char *buffer;
  size_t pos;
} IO_CACHE;

typedef struct {
  pthread_mutex_t LOCK_log;
  enum enum_log_type log_type;
  char *name;
  IO_CACHE log_file;
  unsigned file_no;
  unsigned long events;      /* events written to all binlog files */
  unsigned long bytes_flushed;
  unsigned long file_bytes;  /* size of the current file */
} MYSQL_LOG;

static MYSQL_LOG mysql_bin_log = {PTHREAD_MUTEX_INITIALIZER, LOG_CLOSED, NULL, {NULL, 0}, 0, 0, 0, 0};
#define MAX_BINLOG_SIZE (16 * 1024) /* max_binlog_size, small to rotate often */

static int is_open(MYSQL_LOG *log) { return log->log_type != LOG_CLOSED; }

static void write_header(MYSQL_LOG *log) {
  /* Start_log_event: magic, server version, creation time */
  static const char magic[4] = {(char)0xfe, 'b', 'i', 'n'};
  memcpy(log->log_file.buffer, magic, 4);
  log->log_file.pos = 4;
  log->log_file.pos += (size_t)snprintf(log->log_file.buffer + 4, IO_SIZE - 4,
                                        "Start: server ver 4.0.12-log, binlog ver 3, file %s",
                                        log->name);
}

static void log_open(MYSQL_LOG *log, enum enum_log_type type) {
  log->name = malloc(32);
  snprintf(log->name, 32, "mysql-bin.%03u", ++log->file_no);
  log->log_file.buffer = malloc(IO_SIZE);
  write_header(log);
  log->log_type = type;
}

/* The function with the atomicity violation (close() and open() inlined). */
static void new_file(MYSQL_LOG *log, int need_lock) {
  enum enum_log_type save_log_type;
  if (need_lock) pthread_mutex_lock(&log->LOCK_log);
  save_log_type = log->log_type;

  /* close(): flush and free the IO_CACHE, mark the log closed */
  log->bytes_flushed += log->log_file.pos;
  free(log->log_file.buffer);
  log->log_file.buffer = NULL;
  log->log_file.pos = 0;
  log->log_type = LOG_CLOSED;
  log->file_bytes = 0;
  free(log->name);
  log->name = NULL;

  /* open(): a new file name, a new IO_CACHE, the header, then reopen */
  log->name = malloc(32);
  snprintf(log->name, 32, "mysql-bin.%03u", ++log->file_no);
  log->log_file.buffer = malloc(IO_SIZE);
  write_header(log);
  log->log_type = save_log_type;

  if (need_lock) pthread_mutex_unlock(&log->LOCK_log);
}

/* MYSQL_LOG::write(Log_event*) */
static void log_write(MYSQL_LOG *log, const char *query, size_t len) {
  pthread_mutex_lock(&log->LOCK_log);
  if (is_open(log)) {
    if (log->log_file.pos + len + 1 > IO_SIZE) {
      log->bytes_flushed += log->log_file.pos; /* my_b_flush_io_cache */
      log->log_file.pos = 4;
    }
    memcpy(log->log_file.buffer + log->log_file.pos, query, len);
    log->log_file.pos += len;
    log->log_file.buffer[log->log_file.pos++] = '\n';
    log->events++;
    log->file_bytes += len + 1;
    if (log->file_bytes >= MAX_BINLOG_SIZE) new_file(log, 0); /* rotate */
  }
  pthread_mutex_unlock(&log->LOCK_log);
}

/* The table: rows inserted, under the table lock. */
static pthread_mutex_t LOCK_table = PTHREAD_MUTEX_INITIALIZER;
static unsigned long table_rows;
static long ninserts;
static int stop; /* harness */

static void mysql_insert(long conn, long i) {
  char query[96];
  int len = snprintf(query, sizeof query, "INSERT INTO t1 VALUES (%ld, 'conn %ld row %ld')",
                     conn * ninserts + i, conn, i);
  pthread_mutex_lock(&LOCK_table);
  table_rows++;
  pthread_mutex_unlock(&LOCK_table);
  if (is_open(&mysql_bin_log)) { /* unlocked test: the remote read */
    log_write(&mysql_bin_log, query, (size_t)len);
  }
}

static void *connection(void *arg) {
  long conn = (long)arg;
  for (long i = 0; i < ninserts; i++) mysql_insert(conn, i);
  return NULL;
}

/* An administrator's connection issuing FLUSH LOGS (rotate) over and over;
 * the usleep stands for the client/server round trip of each statement. */
static void *flusher(void *arg) {
  (void)arg;
  while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
    new_file(&mysql_bin_log, 1);
    usleep(20);
  }
  return NULL;
}

int main(int argc, char **argv) {
  double scale = argc > 1 ? atof(argv[1]) : 1; /* may be a fraction, e.g. 0.1 */
  if (!(scale > 0)) scale = 1;
  ninserts = INSERTS * scale;
  if (ninserts < 1) ninserts = 1;
  log_open(&mysql_bin_log, LOG_BIN);

  pthread_t conns[NCONN], fl;
  pthread_create(&fl, NULL, flusher, NULL);
  for (long c = 0; c < NCONN; c++) pthread_create(&conns[c], NULL, connection, (void *)c);
  for (int c = 0; c < NCONN; c++) pthread_join(conns[c], NULL);
  __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
  pthread_join(fl, NULL);

  if (mysql_bin_log.events != table_rows) {
    fprintf(stderr, "mysql-791: %lu of %lu inserted rows missing from the binary log "
                    "(%u log rotations)\n",
            table_rows - mysql_bin_log.events, table_rows, mysql_bin_log.file_no - 1);
    return 1;
  }
  return 0;
}
