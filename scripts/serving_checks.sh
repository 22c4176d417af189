#!/usr/bin/env bash
# Published serving measurements (data/published/serving.json) beside tilecast's
# serving forecasts: builds the native CLI, then writes docs/serving-checks.md
# (or the path given). See docs/serving.md, "Checks against published measurements".
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${TILECAST_CLI:-}" ]; then
  cmake --preset default >/dev/null
  cmake --build --preset default -j "$(nproc)" --target tilecast >/dev/null
fi
node scripts/serving_checks.mjs "${1:-docs/serving-checks.md}"
