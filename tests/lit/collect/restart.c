// The collector is killed (SIGKILL) while a lossless producer streams, and
// started again on the same port and store: the producer reconnects with
// back-off, resends what was not acknowledged, and the store ends up with
// every event exactly once.
// REQUIRES: duckdb
// RUN: %vigil-cc -O2 --vigil-trace=work %S/Inputs/workers.c -o %t -lpthread
// RUN: rm -rf %t.store
// RUN: %collect restart --store %t.store --kill-after 0.4 'env VIGIL_STREAM_BUFFER=4096 %t 300000 2 pace' | FileCheck %s --check-prefix=OUT
// RUN: %collect summary --store %t.store | FileCheck %s --check-prefix=SUM
// RUN: %collect sql --store %t.store "SELECT count(*), count(DISTINCT (thread, tseq)) FROM events" | FileCheck %s --check-prefix=ONCE

// OUT: collector killed
// OUT: producer exit 0
// The second collector got the rest (the producer reconnected to it).
// OUT: vigil collect: 1 producer(s), 1 ended; {{[1-9][0-9]*}} events
// OUT: collector exit 0
// SUM: producer restart.c.tmp mode lossless ended True complete True stored 1200000 lost 0 produced 1200000 missing 0 threads 2
// ONCE: 1200000 1200000
