#!/usr/bin/env bash
# Full training of the NVIDIA FP32 kernel models: `tilecast train --model nvidia-fp32`, the
# recipe in core/data/models/nvidia-fp32/manifest.json (the NVIDIA training CSVs, never the test
# CSVs, never the held-out NVIDIA A100 80GB PCIe), into that folder (TILECAST_TRAIN_OUT=DIR
# writes to DIR). Usage: scripts/train.sh [BUILD_DIR] [extra flags, e.g. --hold-out NAME --seed N].
# Rebuild afterwards to embed the new weights.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${1:-build}"
shift || true
if [ ! -x "$BUILD/cli/tilecast" ] && [ "$BUILD" = build ]; then bash scripts/build_native.sh; fi
"$BUILD/cli/tilecast" train --model nvidia-fp32 ${TILECAST_TRAIN_OUT:+--out "$TILECAST_TRAIN_OUT"} "$@"
