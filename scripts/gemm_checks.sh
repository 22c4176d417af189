#!/usr/bin/env bash
# Published GEMM kernel timings (data/published/gemm-kernels.json) beside tilecast's kernel
# forecasts, and the time multiple each transfer's rows give (a manifest's `time_multiple`):
# builds the native CLI, then runs `tilecast eval-gemms`. See docs/serving.md, "NVFP4 GEMMs at
# their published kernel times".
set -euo pipefail
cd "$(dirname "$0")/.."
CLI="${TILECAST_CLI:-build/cli/tilecast}"
if [ -z "${TILECAST_CLI:-}" ]; then
  cmake --preset default >/dev/null
  cmake --build --preset default -j "$(nproc)" --target tilecast >/dev/null
fi
"$CLI" eval-gemms --file data/published/gemm-kernels.json "$@"
