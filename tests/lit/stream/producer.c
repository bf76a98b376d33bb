// The producer end to end through a file: lossless mode loses nothing from
// 4 threads (every sequence number shipped once), discard mode with tiny
// buffers loses events but counts every one (shipped + lost = produced).
// RUN: %vigil-cc -O2 %s -o %t
// RUN: env VIGIL_STREAM=file:%t.lossless %t 200000 4
// RUN: %check-stream %t.lossless | FileCheck %s --check-prefix=LOSSLESS
// RUN: env VIGIL_STREAM=file:%t.discard VIGIL_STREAM_MODE=discard VIGIL_STREAM_BUFFER=256 %t 200000 4
// RUN: %check-stream %t.discard | FileCheck %s --check-prefix=DISCARD
// Without VIGIL_STREAM nothing is written and nothing is declared.
// RUN: rm -f %t.none && %t 1000 2 && not test -e %t.none
#include <pthread.h>
#include <stdlib.h>
#include <vigil/stream.h>

static uint32_t ev;
static long n;
static void *work(void *a) {
  for (long i = 0; i < n; i++) {
    uint64_t x[2] = {(uint64_t)i, (uint64_t)(long)a};
    vigil_stream_emit(ev, 2, x);
  }
  return 0;
}
int main(int argc, char **argv) {
  n = atol(argv[1]);
  int threads = atoi(argv[2]);
  const char *types[2] = {"i64", "u64"};
  ev = vigil_stream_declare("work", "event", 2, types);
  pthread_t t[16];
  for (long i = 0; i < threads; i++)
    pthread_create(&t[i], 0, work, (void *)i);
  for (int i = 0; i < threads; i++)
    pthread_join(t[i], 0);
  return 0;
}
// LOSSLESS: threads 4 batches {{[0-9]+}} events 800000 lost 0 produced 800000
// LOSSLESS: event work/event 800000
// DISCARD: threads 4 batches {{[0-9]+}} events {{[0-9]+}} lost {{[1-9][0-9]*}} produced 800000
