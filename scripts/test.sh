#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
bash scripts/build_native.sh
ctest --preset default
bash scripts/fuzz.sh --smoke  # each libFuzzer harness: its corpus + 20 s of new inputs (ASan, UBSan)
bash scripts/build_wasm.sh
bash scripts/build_web.sh
bash scripts/test_web.sh
