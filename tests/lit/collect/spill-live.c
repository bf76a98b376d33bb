// Spilling while connected: the collector stops reading for a second
// (SIGSTOP); with a tiny retention and stall time the
// producer spills batches to a file while the socket is in the middle of
// sending others.  The collector must never see a cut document (no
// refusal), and the store plus the imported spill hold every event
// exactly once, the recording complete.
// REQUIRES: duckdb
// RUN: %vigil-cc -O2 --vigil-trace=work %S/Inputs/workers.c -o %t -lpthread
// RUN: rm -rf %t.store %t.spill && mkdir %t.spill
// RUN: %collect run --store %t.store --streams 1 --pause 1 --env VIGIL_STREAM_RETAIN=1M --env VIGIL_STREAM_STALL_MS=1 --env VIGIL_STREAM_SPILL_DIR=%t.spill '%t 400000 2' > %t.out 2>&1
// RUN: FileCheck %s --check-prefix=OUT < %t.out
// RUN: vigil collect --import %t.spill/*.bson --store %t.store
// RUN: %collect summary --store %t.store | FileCheck %s --check-prefix=SUM
// RUN: %collect sql --store %t.store "SELECT count(*), count(DISTINCT (thread, tseq)) FROM events" | FileCheck %s --check-prefix=ONCE

// OUT: unreachable or slow; unacknowledged batches go to
// OUT-NOT: refused
// OUT-NOT: connection closed
// OUT: collector exit 0
// SUM: producer spill-live.c.tmp mode lossless ended True complete True stored 1600000 lost 0 produced 1600000 missing 0 threads 2
// ONCE: 1600000 1600000
