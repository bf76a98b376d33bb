#!/usr/bin/env bash
# Coverage-guided fuzzing of vigil's Rust text front ends with libFuzzer:
# .dot models, binding files, ftrace text, trace-cmd report text, and the
# compiler command lines / response files / VIGIL_VERBOSE value `vigil cc`
# interprets.  Stable Rust: the targets are built with SanitizerCoverage
# passes (RUSTFLAGS below) and linked with clang-19's libFuzzer
# (libclang-rt-19-dev); no nightly, no extra crate.
#
#   tests/fuzz-rust/run.sh BUILD [SECONDS-PER-TARGET] [TARGET...]
#
# TARGETs (all by default): dot bind ftrace tracecmd cmdline stream ltl (the
# LTL front end: parser, Büchi construction, monitor steps) vk (the
# compiled model's C decoder and step function, include/vigil/vk.h) (the
# event stream's decoder, cli/stream, docs/stream-format.md), and config: the
# C runtime's VIGIL_* parsing (runtime/config.c, libFuzzer + ASan/UBSan; its
# first finding, a hang on sizes >= 2^63, is fixed and tested in
# tests/lit/e2e/environment.c).
#
# Builds into BUILD/fuzz-rust/target (the normal cli/ build is untouched),
# collects a seed corpus from the repository's test files (and
# ../shared/models/kernel-rv/*.dot when present) into BUILD/fuzz-rust/seeds,
# keeps what libFuzzer finds in BUILD/fuzz-rust/corpus, and prints per target
#   "fuzz: <target>: N inputs, no crash (E exec/s)"
# or the crash (input saved in BUILD/fuzz-rust/crashes/), then
#   "fuzz-rust: P passed, F failed"
# Exit status non-zero if any target crashed, hung or did not build.
set -u
BUILD=${1:?usage: run.sh BUILD [SECONDS] [TARGET...]}
SECS=${2:-5}
shift $(( $# >= 2 ? 2 : $# ))
TARGETS=${*:-dot bind ftrace tracecmd cmdline stream config vk ltl}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$BUILD/fuzz-rust
TRIPLE=x86_64-unknown-linux-gnu
BIN=$OUT/target/$TRIPLE/release
export PATH=$HOME/.cargo/bin:$PATH
mkdir -p "$OUT/crashes"

# ---- build ------------------------------------------------------------------
SANCOV="-C passes=sancov-module -C llvm-args=-sanitizer-coverage-level=4 \
-C llvm-args=-sanitizer-coverage-inline-8bit-counters \
-C llvm-args=-sanitizer-coverage-pc-table \
-C llvm-args=-sanitizer-coverage-trace-compares \
--cfg fuzzing -C debug-assertions -C overflow-checks"
# --target keeps RUSTFLAGS off build scripts and proc macros (clap_derive).
if ! RUSTFLAGS="$SANCOV" cargo build --quiet --offline --release --features libfuzzer \
     --target $TRIPLE --target-dir "$OUT/target" \
     --manifest-path "$ROOT/tests/fuzz-rust/Cargo.toml" --bins >"$OUT/build.log" 2>&1; then
  cat "$OUT/build.log"
  echo "fuzz-rust: 0 passed, 1 failed (the fuzz targets do not build)"
  exit 1
fi

if [[ " $TARGETS " == *" config "* ]]; then
  mkdir -p "$BIN"
  if ! clang-19 -std=gnu11 -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined \
       -fno-sanitize-recover=undefined -I"$ROOT/include" -I"$ROOT/runtime" \
       "$ROOT/tests/fuzz-rust/c/config_fuzz.c" -o "$BIN/fuzz_config" >>"$OUT/build.log" 2>&1; then
    cat "$OUT/build.log"
    echo "fuzz-rust: 0 passed, 1 failed (the config fuzz target does not build)"
    exit 1
  fi
fi

if [[ " $TARGETS " == *" vk "* ]]; then
  mkdir -p "$BIN"
  if ! clang-19 -std=c11 -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined \
       -fno-sanitize-recover=undefined -I"$ROOT/include" \
       "$ROOT/tests/fuzz-rust/c/vk_fuzz.c" -o "$BIN/fuzz_vk" >>"$OUT/build.log" 2>&1; then
    cat "$OUT/build.log"
    echo "fuzz-rust: 0 passed, 1 failed (the vk fuzz target does not build)"
    exit 1
  fi
fi

# ---- seeds --------------------------------------------------------------------
# Collected afresh each run from the files the other tests use (nothing is
# committed twice).
seed() { # seed TARGET FILE...
  local t=$1; shift
  for f in "$@"; do
    [ -f "$f" ] || continue
    cp -f "$f" "$OUT/seeds/$t/$(echo "${f#"$ROOT"/}" | sed 's,^\.\./,,' | tr '/' '_')"
  done
}
rm -rf "$OUT/seeds"
for t in $TARGETS; do mkdir -p "$OUT/seeds/$t" "$OUT/corpus/$t"; done
repo_files() { # repo_files PATTERN: test and model files matching
  find "$ROOT/tests" "$ROOT/models" "$ROOT/examples" "$ROOT"/cli/*/tests \
    -path "$ROOT/tests/fuzz-rust" -prune -o -type f -name "$1" -print 2>/dev/null
}
for t in $TARGETS; do
  case $t in
    dot)
      seed dot $(repo_files '*.dot')
      [ -d "$ROOT/../shared/models/kernel-rv" ] &&
        seed dot $(find "$ROOT/../shared/models/kernel-rv" -name '*.dot') ;;
    bind) seed bind $(repo_files '*.bind') ;;
    ltl)
      seed ltl $(repo_files '*.ltl')
      [ -d "$ROOT/../shared/models/kernel-rv" ] &&
        seed ltl $(find "$ROOT/../shared/models/kernel-rv" -name '*.ltl') ;;
    ftrace) seed ftrace $(repo_files '*.trace') ;;
    tracecmd)
      seed tracecmd $(repo_files '*.report')
      # trace-cmd lines in other files (e.g. Rust tests' string literals)
      grep -rhoE '[^"]*\[[0-9]{3}\] +[0-9]+\.[0-9]+: sched_[a-z]+: +[a-zA-Z].*:[0-9]+ \[[0-9]+\][^"\\]*' \
        "$ROOT"/cli/*/tests "$ROOT"/cli/trace/src 2>/dev/null | head -200 \
        > "$OUT/seeds/tracecmd/lines-from-rust-tests" ;;
    cmdline)
      # the compiler command lines the lit tests run through vigil cc
      n=0
      grep -rhE 'RUN:.*(vigil-cc|vigil-bin cc|%vigil cc)' "$ROOT/tests/lit" 2>/dev/null |
        sed -E 's/.*(vigil-cc|cc)[[:space:]]+//; s/[|;].*//' | sort -u | head -300 |
        while IFS= read -r l; do n=$((n + 1)); printf '%s\n' "$l" > "$OUT/seeds/cmdline/run-$n"; done
      printf '%s\n' '-O2 -g -c a.c -o a.o' "-c 'a b.c' \"-DX=\\\"y\\\"\" -Wl,-z,now" \
        '-fsyntax-only -x c - -- -f' '-MD -MF dep.d -o out main.c util.o -lvigil' \
        '1' '0' '' > "$OUT/seeds/cmdline/defaults" ;;
    vk)
      # compiled models (src/lib.rs: vk_seeds)
      "$BIN/vk_seeds" "$OUT/seeds/vk" ;;
    stream)
      # streams made by vigil-stream's encoders (src/lib.rs: stream_seeds)
      "$BIN/stream_seeds" "$OUT/seeds/stream" ;;
    config)
      # values of VIGIL_ON_FAILURE ... VIGIL_MEMORY_LIMIT, NUL-separated
      printf 'log\0tags\0001\0000\0001\0000\0001M\0008G' > "$OUT/seeds/config/a"
      printf 'count\0history\0000\0001\0000\0001\00016\0001k' > "$OUT/seeds/config/b"
      printf 'abort\0\0\0\0\0\0\0' > "$OUT/seeds/config/c" ;;
  esac
done

# ---- fuzz -----------------------------------------------------------------------
passed=0 failed=0
for t in $TARGETS; do
  fuzzer=$BIN/fuzz_$t
  log=$OUT/log-$t
  echo "fuzz: $t: $(ls "$OUT/seeds/$t" | wc -l) seeds, $(ls "$OUT/corpus/$t" | wc -l) in the corpus; fuzzing for ${SECS}s"
  if "$fuzzer" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -close_fd_mask=$([ $t = config ] && echo 2 || echo 1) \
       -artifact_prefix="$OUT/crashes/$t-" -print_final_stats=1 \
       "$OUT/corpus/$t" "$OUT/seeds/$t" >"$log" 2>&1; then
    runs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+)/\1/p' "$log")
    rate=$(sed -nE 's/^stat::average_exec_per_sec: *([0-9]+)/\1/p' "$log")
    cov=$(grep -aoE 'cov: [0-9]+' "$log" | tail -1)
    echo "fuzz: $t: ${runs:-?} inputs, no crash (${rate:-?} exec/s, ${cov:-cov: ?} edges)"
    passed=$((passed + 1))
  else
    grep -a -A25 -E "panicked|ERROR: libFuzzer|==[0-9]+==" "$log" | head -60
    echo "fuzz: $t: CRASH; input saved as $(grep -aoE 'Test unit written to .*' "$log" | sed 's/Test unit written to //' | tail -1)"
    echo "fuzz: $t: replay with $fuzzer FILE"
    failed=$((failed + 1))
  fi
done
echo "fuzz-rust: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
