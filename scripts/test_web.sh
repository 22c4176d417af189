#!/usr/bin/env bash
# The web tests: WASM vs native CLI (Node), then the browser tests (Chromium via
# playwright-core) against web/dist/. Needs build/cli/tilecast (TILECAST_CLI),
# build-wasm/wasm (TILECAST_WASM_DIR) and web/dist (scripts/build_web.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
export TILECAST_CLI="${TILECAST_CLI:-build/cli/tilecast}"
node --test --test-concurrency=1 web/tests/accuracy_report.test.mjs web/tests/serving_checks.test.mjs web/tests/wasm.test.mjs web/tests/schema_wasm.test.mjs web/tests/serving_load.test.mjs \
  web/tests/browser.test.mjs web/tests/calc.test.mjs web/tests/megatron.test.mjs web/tests/finetune.test.mjs web/tests/serve_load_page.test.mjs web/tests/serve_quantized.test.mjs web/tests/capacity_page.test.mjs web/tests/serve_operators.test.mjs \
  web/tests/worker.test.mjs
