#!/usr/bin/env bash
# The whole test suite: installs what is missing, checks formatting, builds, runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
bash scripts/check_format.sh   # C++ and TypeScript as `make format` leaves them, types checked
bash scripts/build_native.sh
ctest --preset default
# The libFuzzer smoke (`bash scripts/fuzz.sh --smoke`, ~5 min on 2 cores: docs/fuzzing.md "CI
# smoke") is not run here: with it a clean clone's suite passed 20 minutes on 2 cores (the native
# build alone took ~12). Run it with `make fuzz-smoke`.
bash scripts/build_wasm.sh
bash scripts/build_web.sh
bash scripts/test_web.sh
