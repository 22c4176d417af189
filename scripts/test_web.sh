#!/usr/bin/env bash
# The web tests: WASM vs native CLI (Node), then the browser tests (Chromium via
# playwright-core) against web/dist/. Needs build/cli/tilecast (TILECAST_CLI),
# build-wasm/wasm (TILECAST_WASM_DIR) and web/dist (scripts/build_web.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
export TILECAST_CLI="${TILECAST_CLI:-build/cli/tilecast}"
# The serving checks' forecasts, made once for the accuracy report's test and kept for the
# serving table's (scripts/serving_checks.mjs, TILECAST_SERVE_CACHE: keyed by the CLI's bytes).
TILECAST_SERVE_CACHE="$(mktemp -d)"
export TILECAST_SERVE_CACHE
trap 'rm -rf "$TILECAST_SERVE_CACHE"' EXIT
# every web/tests/*.test.mjs, so a new test file runs without being listed here
node --test --test-concurrency=1 web/tests/*.test.mjs
