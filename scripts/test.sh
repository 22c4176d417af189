#!/usr/bin/env bash
# The whole test suite: installs what is missing, checks formatting, builds, runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
bash scripts/check_format.sh   # C++ and TypeScript as `make format` leaves them, types checked
bash scripts/build_native.sh
ctest --preset default
# the libFuzzer harnesses (clang, ASan + UBSan, -O0: the fuzz-smoke preset) on their committed
# corpus plus 20 s of new inputs each; ~5 min on 2 cores (docs/fuzzing.md "CI smoke")
bash scripts/fuzz.sh --smoke
bash scripts/build_wasm.sh
bash scripts/build_web.sh
bash scripts/test_web.sh
