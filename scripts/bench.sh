#!/usr/bin/env bash
# Speed and size benchmarks (numbers, not pass/fail: machines are noisy).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build_native.sh >/dev/null
for b in build/bench/*_bench; do
  echo "== $(basename "$b")"
  "$b"
done
if [ -f bench/web_bench.mjs ]; then
  echo "== web_bench"
  node bench/web_bench.mjs
fi
