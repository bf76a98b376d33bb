#!/usr/bin/env bash
# Runs every test suite and prints one closing line with the totals:
#   "tests: N passed, N failed, N skipped"
# Exit status is non-zero if any suite failed.
set -u
BUILD=${1:-$(pwd)/build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
passed=0 failed=0 skipped=0 status=0
log=$(mktemp -d)

echo "== runtime unit and property tests"
"$BUILD/tests/test_engine" | tee "$log/runtime" || status=1
line=$(grep -E '^runtime: [0-9]+ passed, [0-9]+ failed' "$log/runtime" | tail -1)
if [ -n "$line" ]; then
  passed=$((passed + $(sed -E 's/.* ([0-9]+) passed.*/\1/' <<<"$line")))
  failed=$((failed + $(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")))
else
  echo "runtime tests printed no summary"; failed=$((failed + 1)); status=1
fi

echo "== fuzzing the descriptor parser and automaton construction (libFuzzer)"
"$ROOT/tests/fuzz/run.sh" "$BUILD" "${VIGIL_FUZZ_SECONDS:-20}" | tee "$log/fuzz" || status=1
line=$(grep -E '^fuzz: [0-9]+ passed, [0-9]+ failed' "$log/fuzz" | tail -1)
if [ -n "$line" ]; then
  passed=$((passed + $(sed -E 's/.* ([0-9]+) passed.*/\1/' <<<"$line")))
  failed=$((failed + $(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")))
else
  echo "fuzzing printed no summary"; failed=$((failed + 1)); status=1
fi

echo "== fuzzing the Clang plugin's assertion parser (structured mutator)"
if python3 "$ROOT/tests/fuzz/plugin_mutate.py" "$BUILD" "${VIGIL_PLUGIN_FUZZ_SECONDS:-10}" | tee "$log/fuzz-plugin"; then
  passed=$((passed + 1))
else
  failed=$((failed + 1)); status=1
fi

echo "== fuzzing the Rust text front ends and the runtime's VIGIL_* parsing (libFuzzer)"
"$ROOT/tests/fuzz-rust/run.sh" "$BUILD" "${VIGIL_RUST_FUZZ_SECONDS:-3}" | tee "$log/fuzz-rust" || status=1
line=$(grep -E '^fuzz-rust: [0-9]+ passed, [0-9]+ failed' "$log/fuzz-rust" | tail -1)
if [ -n "$line" ]; then
  passed=$((passed + $(sed -E 's/.* ([0-9]+) passed.*/\1/' <<<"$line")))
  failed=$((failed + $(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")))
else
  echo "Rust fuzzing printed no summary"; failed=$((failed + 1)); status=1
fi

# One lit run (environment assignments first, then the test directories),
# its counts added to the totals.
run_lit() {
  local name=$1; shift
  local envs=()
  while [[ $# -gt 0 && $1 == *=* ]]; do envs+=("$1"); shift; done
  env "${envs[@]}" VIGIL_BUILD="$BUILD" python3 -c "import sys; from lit.main import main; sys.argv[0] = \"lit\"; main()" -v "$@" 2>&1 | tee "$log/$name"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  for kind in Passed Failed Unsupported; do
    n=$(grep -E "^ *$kind *: *[0-9]+" "$log/$name" | sed -E 's/[^0-9]*([0-9]+).*/\1/' | tail -1)
    n=${n:-0}
    case $kind in
      Passed) passed=$((passed + n));;
      Failed) failed=$((failed + n));;
      Unsupported) skipped=$((skipped + n));;
    esac
  done
  grep -E "^ *(Passed|Failed)" "$log/$name" >/dev/null || { echo "lit ran no test"; status=1; failed=$((failed + 1)); }
}

echo "== lit end-to-end and compiler tests"
run_lit lit "$ROOT/tests/lit"

echo "== lit end-to-end tests again, every hook a runtime call (VIGIL_FAST_PATH=0)"
run_lit lit2 VIGIL_FAST_PATH=0 "$ROOT/tests/lit/e2e"

echo "== lit end-to-end tests again, the static checker on (VIGIL_STATIC=report: it prints and must change nothing)"
run_lit lit3 VIGIL_STATIC=report "$ROOT/tests/lit/e2e" "$ROOT/tests/lit/faults" "$ROOT/tests/lit/debug" "$ROOT/tests/lit/report"

echo "== cargo test (CLI)"
cargo test --quiet --manifest-path "$ROOT/cli/Cargo.toml" 2>&1 | tee "$log/cargo"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
while read -r p f; do
  passed=$((passed + p)); failed=$((failed + f))
done < <(sed -nE 's/^test result: [a-zA-Z]+\. ([0-9]+) passed; ([0-9]+) failed.*/\1 \2/p' "$log/cargo")

echo "== cargo clippy (CLI): no warnings"
if cargo clippy --version >/dev/null 2>&1; then
  if cargo clippy --manifest-path "$ROOT/cli/Cargo.toml" --workspace --all-targets -- -D warnings >"$log/clippy" 2>&1; then
    passed=$((passed + 1))
  else
    cat "$log/clippy"; echo "cargo clippy failed (exit status above)"
    failed=$((failed + 1)); status=1
  fi
else
  echo "skipped: cargo clippy is not installed (Debian's cargo has no clippy)"; skipped=$((skipped + 1))
fi

rm -rf "$log"
echo
echo "tests: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] || status=1
exit $status
