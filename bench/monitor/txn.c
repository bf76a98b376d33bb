#include <stdlib.h>
__attribute__((noinline)) int txn_begin(void) { __asm__ volatile(""); return 0; }
__attribute__((noinline)) void txn_commit(void) { __asm__ volatile(""); }
__attribute__((noinline)) void txn_abort(void) { __asm__ volatile(""); }
int main(int argc, char **argv) {
  long n = atol(argv[1]);
  for (long i = 0; i < n; i++) { txn_begin(); txn_commit(); }
  return 0;
}
