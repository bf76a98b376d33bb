/* thread and global rows: begin <- return:txn_begin if ret == 0,
 * commit <- call:txn_commit (abort is never called).  hand.h: the same
 * check by hand, where the hooks fire. */
#include <stdlib.h>
#include "hand.h"
__attribute__((noinline)) int txn_begin(void) {
  __asm__ volatile("");
  int ret = 0;
  if (ret == 0)
    TXN_STEP(TXN_BEGIN);
  return ret;
}
__attribute__((noinline)) void txn_commit(void) { TXN_STEP(TXN_COMMIT); __asm__ volatile(""); }
__attribute__((noinline)) void txn_abort(void) { TXN_STEP(TXN_ABORT); __asm__ volatile(""); }
int main(int argc, char **argv) {
  long n = atol(argv[1]);
  for (long i = 0; i < n; i++) { txn_begin(); txn_commit(); }
  return 0;
}
