#!/usr/bin/env bash
# Whole-model accuracy: forecasts against the measured end-to-end latencies of
# the shared labels, per case and per GPU and mode (roofline beside).
# Extra arguments go to `tilecast eval-e2e` (e.g. --json, --predictor roofline).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${TILECAST_BUILD:-build}"
DATA="${TILECAST_DATA_DIR:-../shared/data/neusight}"
[ -x "$BUILD/cli/tilecast" ] || bash scripts/build_native.sh >/dev/null
"$BUILD/cli/tilecast" eval-e2e --devices "$DATA/devices" --models "$DATA/models" \
  --labels "$DATA/labels" "$@"
