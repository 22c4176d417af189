#!/usr/bin/env bash
# Speed and size benchmarks (numbers, not pass/fail: machines are noisy).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build_native.sh >/dev/null
for b in build/bench/*_bench; do
  echo "== $(basename "$b")"
  "$b"
done
echo "== web_bench"
bash scripts/build_wasm.sh >/dev/null
bash scripts/build_web.sh >/dev/null
node bench/web_bench.mjs
