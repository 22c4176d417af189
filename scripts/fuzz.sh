#!/usr/bin/env bash
# Runs the libFuzzer harnesses (tests/fuzz, docs/fuzzing.md) built with clang, AddressSanitizer
# and UndefinedBehaviorSanitizer (the `fuzz` CMake preset, build-fuzz/).
#   scripts/fuzz.sh [SECONDS]   each harness on its committed corpus, then SECONDS of new inputs
#                               (default 1800: `make fuzz`; FUZZ_SECONDS=N make fuzz).
#   scripts/fuzz.sh --smoke     what CI runs (scripts/test.sh): the corpus plus 20 s each, built
#                               by the fuzz-smoke preset (-O0, no debug lines: 0.81x the sanitized
#                               compile CPU; build-fuzz-smoke/; docs/fuzzing.md "CI smoke").
# FUZZ_TIMEOUT=S (default 30) is the seconds after which one input counts as a hang; the long runs
# on a machine shared with builds use more (docs/fuzzing.md "Runs" says which).
# New inputs go to build-fuzz[-smoke]/corpus/<harness> (the committed corpus is only read); a finding
# is written to test-artifacts/fuzz/ and fails the run. The last lines of each run (executions,
# coverage) are printed for docs/fuzzing.md.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-1800}"
preset=fuzz
if [ "$seconds" = "--smoke" ]; then
  seconds=20
  preset=fuzz-smoke
fi
bin="build-$preset"
export CMAKE_CXX_COMPILER_LAUNCHER="${CMAKE_CXX_COMPILER_LAUNCHER:-}"
cmake --preset "$preset" >/dev/null
# each harness (tests/fuzz/<harness>.cpp) with its committed corpus (tests/fuzz/corpus/<name>)
harnesses=(fuzz_api_raw:raw fuzz_api_structured:structured fuzz_kernel_csv:csv)
cmake --build --preset "$preset" -j "$(nproc)" --target "${harnesses[@]%%:*}"
mkdir -p test-artifacts/fuzz
# One harness's run: its log in test-artifacts/fuzz/<name>.log, its exit status the finding's.
run_one() {
  local harness="$1" h="$2" work="$bin/corpus/$2"
  mkdir -p "$work"
  # -timeout: an input slower than this under the sanitizers is a finding (the work budget holds
  # requests to ~1 s natively; ASan and a loaded machine make that 10x or more)
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "$bin/tests/fuzz/$harness" "$work" "tests/fuzz/corpus/$h" \
    -max_total_time="$seconds" -timeout="${FUZZ_TIMEOUT:-30}" -rss_limit_mb=4096 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="test-artifacts/fuzz/$h-" \
    >"test-artifacts/fuzz/$h.log" 2>&1
}
# The harnesses run side by side, one per core (each is single-threaded, so each still gets its
# SECONDS of a whole core); their reports follow in the list's order once all have ended.
declare -A pid
for entry in "${harnesses[@]}"; do
  harness="${entry%%:*}" h="${entry##*:}"
  while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n || true; done
  echo "fuzz: $harness, corpus tests/fuzz/corpus/$h + $bin/corpus/$h, ${seconds} s of new inputs"
  run_one "$harness" "$h" &
  pid[$h]=$!
done
status=0
for entry in "${harnesses[@]}"; do
  harness="${entry%%:*}" h="${entry##*:}"
  if ! wait "${pid[$h]}"; then
    status=1
    echo "fuzz: $harness FOUND A FAILURE (test-artifacts/fuzz/$h.log):"
    grep -v "^#" "test-artifacts/fuzz/$h.log" | tail -40
  fi
  grep -E "^#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss_mb" \
    "test-artifacts/fuzz/$h.log" | sed "s/^/fuzz: $h: /"
done
exit $status
