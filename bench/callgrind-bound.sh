#!/usr/bin/env bash
# Instructions per call of an instrumented bound vs the uninstrumented
# program, counted by callgrind (repeatable on any machine).  Per-call cost
# is (Ir(2N) - Ir(N)) / N, which cancels start-up and exit.
# (valgrind 3.19 cannot read the DWARF 5 that clang-19 emits: binaries are
# linked with --strip-debug.)
# Usage: bench/callgrind-bound.sh [BUILD_DIR]   -> bench/results/callgrind-bound.md
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
OUT=$ROOT/bench/results
mkdir -p "$OUT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
N=100000

clang-19 -O2 -I"$ROOT/include" "$ROOT/bench/bound.c" -fuse-ld=lld -Wl,--strip-debug -o "$tmp/plain"
"$BUILD/bin/vigil-cc" -O2 "$ROOT/bench/bound.c" -Wl,--strip-debug -o "$tmp/static"
"$BUILD/bin/vigil-cc" -O2 -DNONSTATIC "$ROOT/bench/bound.c" -Wl,--strip-debug -o "$tmp/nonstatic"

ir() { # program iterations [env...]
  local prog=$1 n=$2; shift 2
  env "$@" valgrind --tool=callgrind --callgrind-out-file=/dev/null "$prog" "$n" 2>&1 |
    sed -nE 's/.*Collected : ([0-9]+).*/\1/p'
}
per_call() { # program [env...]
  local prog=$1; shift
  local a b
  a=$(ir "$prog" $N "$@"); b=$(ir "$prog" $((2 * N)) "$@")
  echo $(( (b - a) / N ))
}

plain=$(per_call "$tmp/plain")
static=$(per_call "$tmp/static")
nonstatic_tags=$(per_call "$tmp/nonstatic" VIGIL_ALGORITHM=tags)
nonstatic_hist=$(per_call "$tmp/nonstatic" VIGIL_ALGORITHM=history)

{
  echo "# Instructions per bound (callgrind), $(date -u +%Y-%m-%d)"
  echo
  echo "bench/bound.c: bound() calls check() and reaches the site of previously(...)."
  echo "Per call = (Ir(2N) - Ir(N)) / N with N = $N; clang-19 -O2; command: make bench."
  echo
  echo "| program | instructions per call | added by vigil |"
  echo "|---|---:|---:|"
  echo "| uninstrumented (plain clang) | $plain | - |"
  echo "| vigil, static previously(call(check)) | $static | $((static - plain)) |"
  echo "| vigil, non-static previously(check(i) == 0), tags | $nonstatic_tags | $((nonstatic_tags - plain)) |"
  echo "| vigil, non-static previously(check(i) == 0), history | $nonstatic_hist | $((nonstatic_hist - plain)) |"
} | tee "$OUT/callgrind-bound.md"
