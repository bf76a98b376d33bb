// Discard mode: with tiny buffers a burst loses events, and every loss is
// counted: per thread, stored + lost = produced, nothing missing.
// RUN: %vigil-cc -O2 --vigil-trace=work %S/Inputs/workers.c -o %t -lpthread
// RUN: rm -rf %t.store
// RUN: %collect run --store %t.store --streams 1 --env VIGIL_STREAM_MODE=discard --env VIGIL_STREAM_BUFFER=256 '%t 200000 4' | FileCheck %s --check-prefix=OUT
// RUN: %collect summary --store %t.store | FileCheck %s --check-prefix=SUM

// OUT: producer exit 0
// OUT: collector exit 0
// SUM: producer discard.c.tmp mode discard ended True complete True stored {{[0-9]+}} lost {{[1-9][0-9]*}} produced 1600000 missing 0 threads 4
// SUM: totals producers 1 complete 1
