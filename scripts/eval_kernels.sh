#!/usr/bin/env bash
# Kernel accuracy table on the shared test set (MAPE per GPU and op, ours beside the
# roofline). Usage: scripts/eval_kernels.sh [BUILD_DIR] [--json]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${1:-build}"
shift || true
DATA="${TILECAST_DATA_DIR:-../shared/data/neusight}"
"$BUILD/cli/tilecast" eval-kernels --devices "$DATA/devices" "$@" \
  "$DATA/nvidia/kernels/test/bmm.csv" "$DATA/nvidia/kernels/test/linear.csv" \
  "$DATA/nvidia/kernels/test/vec.csv"
