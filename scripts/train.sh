#!/usr/bin/env bash
# Full training of the kernel models: writes core/data/models/nvidia-fp32/kernel_weights.json
# and tile_table.json from the NVIDIA training CSVs (never the test CSVs,
# never the held-out NVIDIA A100 80GB PCIe). Usage: scripts/train.sh [BUILD_DIR] [extra flags]
# (TILECAST_TRAIN_OUT=DIR writes elsewhere). Rebuild afterwards to embed the new weights.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${1:-build}"
shift || true
if [ ! -x "$BUILD/cli/tilecast" ] && [ "$BUILD" = build ]; then bash scripts/build_native.sh; fi
DATA="${TILECAST_DATA_DIR:-../shared/data/neusight}"
. scripts/nvidia_training_csvs.sh
nvidia_training_csvs "$DATA"
"$BUILD/cli/tilecast" train --devices "$DATA/devices" --out "${TILECAST_TRAIN_OUT:-core/data/models/nvidia-fp32}" --seed 1 "$@" "${files[@]}"
