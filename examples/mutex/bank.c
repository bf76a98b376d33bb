/*
 * bank.c — concurrent transfers between accounts, each account guarded by
 * its own mutex; the worked example of a monitor on C functions
 * (examples/mutex/README.md).  The program knows nothing of vigil: the
 * monitor (mutex.bind, models/mutex.dot) is linked in by
 *
 *     vigil-cc --vigil-monitor=mutex.bind -O1 -g -o bank bank.c -lpthread
 *
 * Usage: bank [BUG]   BUG = none (default) | self-transfer | audit
 *
 *   self-transfer  transfer() forgets to refuse a transfer from an account to
 *                  itself, and locks that account's mutex twice: a double
 *                  lock (the mutexes are error-checking, so the second lock
 *                  fails with EDEADLK instead of hanging, and the program,
 *                  which ignores the result, carries on);
 *   audit          audit() releases the first account once more after
 *                  releasing them all: an unlock without a lock.
 */
#define _GNU_SOURCE /* pthread_setname_np */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ACCOUNTS 8
#define THREADS 4
#define TRANSFERS 20000
#define OPENING_BALANCE 1000

struct account {
  pthread_mutex_t lock;
  int id;
  long balance;
};

static struct account accounts[ACCOUNTS];
static const char *bug = "none";

static void open_accounts(void) {
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  /* debug builds often use error-checking mutexes: a relock fails, EDEADLK */
  pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ERRORCHECK);
  for (int i = 0; i < ACCOUNTS; i++) {
    pthread_mutex_init(&accounts[i].lock, &attr);
    accounts[i].id = i;
    accounts[i].balance = OPENING_BALANCE;
  }
  pthread_mutexattr_destroy(&attr);
}

static void close_accounts(void) {
  for (int i = 0; i < ACCOUNTS; i++)
    pthread_mutex_destroy(&accounts[i].lock);
}

/* (The functions below are not static so that the backtraces in vigil's
 * reports can name them: backtrace_symbols() sees exported symbols only.)
 *
 * Moves `amount` from one account to another; locks both in id order so that
 * two opposite transfers cannot deadlock.  Returns 0, or -1 when the money
 * is not there. */
int transfer(struct account *from, struct account *to, long amount) {
  if (from == to && strcmp(bug, "self-transfer") != 0)
    return 0; /* nothing to move (the seeded bug forgets this check) */
  struct account *first = from->id <= to->id ? from : to;
  struct account *second = from->id <= to->id ? to : from;
  pthread_mutex_lock(&first->lock);
  pthread_mutex_lock(&second->lock); /* from == to: the same mutex again */
  int ok = from->balance >= amount;
  if (ok) {
    from->balance -= amount;
    to->balance += amount;
  }
  if (second != first)
    pthread_mutex_unlock(&second->lock);
  pthread_mutex_unlock(&first->lock);
  return ok ? 0 : -1;
}

/* The bank's total, every account locked at once (a consistent snapshot).
 * Stops early at an overdrawn account. */
long audit(void) {
  long total = 0;
  int locked = 0;
  for (; locked < ACCOUNTS; locked++)
    pthread_mutex_lock(&accounts[locked].lock);
  for (int i = 0; i < ACCOUNTS; i++) {
    if (accounts[i].balance < 0) {
      fprintf(stderr, "account %d is overdrawn\n", i);
      break;
    }
    total += accounts[i].balance;
  }
  while (locked > 0)
    pthread_mutex_unlock(&accounts[--locked].lock);
  if (strcmp(bug, "audit") == 0)
    pthread_mutex_unlock(&accounts[0].lock); /* seeded: one unlock too many */
  return total;
}

/* A quick look at a balance; skipped when the account is busy. */
long peek(struct account *acc) {
  long balance = -1;
  if (pthread_mutex_trylock(&acc->lock) == 0) {
    balance = acc->balance;
    pthread_mutex_unlock(&acc->lock);
  }
  return balance;
}

void *teller(void *arg) {
  char name[16];
  snprintf(name, sizeof name, "teller-%ld", (long)arg);
  pthread_setname_np(pthread_self(), name);
  unsigned seed = (unsigned)(long)arg * 7919u + 1;
  long seen = 0;
  for (int i = 0; i < TRANSFERS; i++) {
    int a = rand_r(&seed) % ACCOUNTS;
    int b = (a + 1 + rand_r(&seed) % (ACCOUNTS - 1)) % ACCOUNTS;
    if (arg == 0 && i == TRANSFERS / 2)
      b = a; /* once, a customer moves money to the same account */
    transfer(&accounts[a], &accounts[b], rand_r(&seed) % 100);
    if (i % 64 == 0)
      seen += peek(&accounts[b]) >= 0;
  }
  return (void *)seen;
}

int main(int argc, char **argv) {
  if (argc > 1)
    bug = argv[1];
  open_accounts();
  pthread_t t[THREADS];
  for (long i = 0; i < THREADS; i++)
    pthread_create(&t[i], NULL, teller, (void *)i);
  for (int i = 0; i < THREADS; i++)
    pthread_join(t[i], NULL);
  long total = audit();
  printf("total %ld (expected %d)\n", total, ACCOUNTS * OPENING_BALANCE);
  close_accounts();
  return total == ACCOUNTS * OPENING_BALANCE ? 0 : 1;
}
