#!/usr/bin/env bash
# The whole test suite: installs what is missing, checks formatting, builds, runs every test.
# Each stage's wall time is printed (CI must finish in 20 minutes on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
stage() {
  local t0=$SECONDS
  "$@"
  echo "test.sh: '$*' took $((SECONDS - t0)) s (total $SECONDS s)"
}
stage bash scripts/bootstrap.sh
stage bash scripts/check_format.sh   # C++ and TypeScript as `make format` leaves them, types checked
stage bash scripts/build_native.sh
stage ctest --preset default
# The libFuzzer harnesses with ASan + UBSan on their committed corpus plus 20 s of new inputs
# each (docs/fuzzing.md "CI smoke"; `make fuzz-smoke`).
stage bash scripts/fuzz.sh --smoke
stage bash scripts/build_wasm.sh
stage bash scripts/build_web.sh
stage bash scripts/test_web.sh
