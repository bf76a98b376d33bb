#!/usr/bin/env bash
# Fuzzes the descriptor parser and the automaton construction for a bounded
# time (libFuzzer, ASan + UBSan), seeded with the descriptors the Clang
# plugin writes for every end-to-end test program.  Prints one line
#   "fuzz: N passed, M failed"
# that tests/run-all.sh adds to the totals.
#   tests/fuzz/run.sh BUILD [SECONDS]
set -u
BUILD=${1:?usage: run.sh BUILD [SECONDS]}
SECS=${2:-20}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$BUILD/fuzz
mkdir -p "$OUT/corpus" "$OUT/crashes"
LLVM_CXXFLAGS=$(llvm-config-19 --cxxflags)
fuzzer=$OUT/descriptor_fuzz
srcs="$ROOT/tests/fuzz/descriptor_fuzz.cpp"
for f in Event Pattern Nfa Automaton Assertion Descriptor; do
  srcs="$srcs $ROOT/compiler/model/$f.cpp"
done
if [ ! -x "$fuzzer" ] || [ -n "$(find $srcs "$ROOT"/compiler/model/*.h -newer "$fuzzer" 2>/dev/null)" ]; then
  echo "fuzz: building $fuzzer"
  clang++-19 $LLVM_CXXFLAGS -std=c++17 -g -O1 -fno-omit-frame-pointer \
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    $srcs $(llvm-config-19 --ldflags) -lLLVM-19 -o "$fuzzer" || {
    echo "fuzz: 0 passed, 1 failed (the fuzzer does not build)"; exit 1; }
fi
# Seeds: the descriptor strings in the IR the plugin rewrites.
n=0
for c in "$ROOT"/tests/lit/e2e/*.c; do
  clang-19 -D__VIGIL__=1 -I"$ROOT/include" -fplugin="$BUILD/lib/vigil-clang.so" \
    -S -emit-llvm -o - "$c" 2>/dev/null |
    grep -o 'c"{\\22.*\\00"' | sed -e 's/^c"//' -e 's/\\00"$//' |
    while IFS= read -r line; do
      n=$((n + 1))
      printf '%b' "$(sed -e 's/\\\([0-9A-F][0-9A-F]\)/\\x\1/g' <<<"$line")" \
        > "$OUT/corpus/seed-$(basename "$c" .c)-$n"
    done
done
echo "fuzz: $(ls "$OUT/corpus" | wc -l) inputs in the corpus; fuzzing for ${SECS}s"
log=$OUT/log
if "$fuzzer" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 \
     -artifact_prefix="$OUT/crashes/" -print_final_stats=1 "$OUT/corpus" >"$log" 2>&1; then
  runs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+)/\1/p' "$log")
  echo "fuzz: descriptor parser and automaton construction: ${runs:-?} inputs, no crash"
  echo "fuzz: 1 passed, 0 failed"
else
  tail -40 "$log"
  echo "fuzz: crash input saved in $OUT/crashes/"
  echo "fuzz: 0 passed, 1 failed"
  exit 1
fi
