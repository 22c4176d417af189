#!/usr/bin/env bash
# The web tests: WASM vs native CLI (Node), then the browser tests (Chromium via
# playwright-core) against web/dist/. Needs build/cli/tilecast (TILECAST_CLI),
# build-wasm/wasm (TILECAST_WASM_DIR) and web/dist (scripts/build_web.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
export TILECAST_CLI="${TILECAST_CLI:-build/cli/tilecast}"
# every web/tests/*.test.mjs, so a new test file runs without being listed here
node --test --test-concurrency=1 web/tests/*.test.mjs
