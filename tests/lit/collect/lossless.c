// Lossless end to end over TCP: two processes (one of them forks: the
// child streams on its own) of 4 threads each send every traced call to a
// real collector; every sequence number of every thread is stored exactly
// once, and DuckDB reads the same from the Parquet segments.
// REQUIRES: duckdb
// RUN: %vigil-cc -O2 --vigil-trace=work %S/Inputs/workers.c -o %t -lpthread
// RUN: rm -rf %t.store
// RUN: %collect run --store %t.store --streams 3 --env VIGIL_STREAM_BUFFER=4096 '%t 20000 4 fork' '%t 30000 4' | FileCheck %s --check-prefix=OUT
// RUN: %collect summary --store %t.store | FileCheck %s --check-prefix=SUM
// Every (stream, thread): count = distinct tseq = max tseq + 1.
// RUN: %collect sql --store %t.store "SELECT count(*), sum(CASE WHEN n = d AND n = m + 1 THEN 1 ELSE 0 END) FROM (SELECT stream, thread, count(*) n, count(DISTINCT tseq) d, max(tseq) m FROM events GROUP BY ALL)" | FileCheck %s --check-prefix=SEQ
// RUN: %collect sql --store %t.store "SELECT kind, count(*) FROM events WHERE event = 'work' GROUP BY kind ORDER BY kind" | FileCheck %s --check-prefix=KINDS

// OUT: producer exit 0
// OUT: producer exit 0
// OUT-NOT: unreachable or slow
// OUT: vigil collect: 3 producer(s), 3 ended; 560000 events in
// OUT: collector exit 0
// SUM: producer lossless.c.tmp mode lossless ended True complete True stored 160000 lost 0 produced 160000 missing 0 threads 4
// SUM: producer lossless.c.tmp mode lossless ended True complete True stored 160000 lost 0 produced 160000 missing 0 threads 4
// SUM: producer lossless.c.tmp mode lossless ended True complete True stored 240000 lost 0 produced 240000 missing 0 threads 4
// SUM: totals producers 3 complete 3 stored 560000 lost 0 missing 0
// SEQ: 12 12
// KINDS: entry 280000
// KINDS: return 280000
