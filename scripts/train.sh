#!/usr/bin/env bash
# Full training of the kernel models: writes core/data/kernel_weights.json and
# core/data/tile_table.json from the NVIDIA training CSVs (never the test CSVs,
# never the held-out NVIDIA A100 80GB PCIe). Usage: scripts/train.sh [BUILD_DIR] [extra flags]
# (TILECAST_TRAIN_OUT=DIR writes elsewhere). Rebuild afterwards to embed the new weights.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${1:-build}"
shift || true
if [ ! -x "$BUILD/cli/tilecast" ] && [ "$BUILD" = build ]; then bash scripts/build_native.sh; fi
DATA="${TILECAST_DATA_DIR:-../shared/data/neusight}"
TRAIN="$DATA/nvidia/kernels/train"
files=()
for op in linear bmm add addu mul mulu div divu pow powu relu gelu tanh softmax ln; do
  for gpu in "NVIDIA A100-PCIE-40GB" "Tesla P100-PCIE-16GB" "Tesla P4" "Tesla T4" "Tesla V100-PCIE-32GB"; do
    files+=("$TRAIN/$op/$gpu.csv")
  done
done
files+=("$TRAIN/elem-curated.csv" "$TRAIN/softmax-curated.csv" "$TRAIN/ln-curated.csv")
"$BUILD/cli/tilecast" train --devices "$DATA/devices" --out "${TILECAST_TRAIN_OUT:-core/data}" --seed 1 "$@" "${files[@]}"
