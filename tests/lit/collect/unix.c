// A Unix socket destination: the collector names the peer with its pid and
// stores the stream like any other.
// RUN: %vigil-cc -O2 --vigil-trace=work %s -o %t
// RUN: rm -rf %t.store %t.sock
// RUN: %collect run --store %t.store --streams 1 --collector-arg=--listen --collector-arg=unix:%t.sock 'env VIGIL_STREAM=unix:%t.sock %t 1000' | FileCheck %s --check-prefix=OUT
// RUN: %collect summary --store %t.store | FileCheck %s --check-prefix=SUM
// RUN: not test -e %t.sock
__attribute__((noinline)) long work(long i) { return i; }
int main(int argc, char **argv) {
  for (long i = 0; i < 1000; i++)
    work(i);
  return 0;
}
// OUT: listening on unix:{{.*}}.sock
// OUT: collector exit 0
// SUM: producer unix.c.tmp mode lossless ended True complete True stored 2000 lost 0 produced 2000 missing 0 threads 1
