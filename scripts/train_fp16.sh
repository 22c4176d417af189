#!/usr/bin/env bash
# Full training of the FP16/BF16 kernel models on both GPUs of the vidur compute data (A100 80GB
# as the SXM catalog entry, A40): `tilecast train --model nvidia-half`, the recipe in
# core/data/models/nvidia-half/manifest.json, writes nvidia-half/kernel_weights.json (the nets)
# and nvidia-half-gemm/tensor_gemm.json (the analytic tensor-core GEMM model the registry serves
# for GEMMs); TILECAST_TRAIN_OUT=DIR writes both into DIR. Deterministic for a seed.
# Usage: scripts/train_fp16.sh [BUILD_DIR] [extra flags]. Rebuild afterwards to embed them.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${1:-build}"
shift || true
"$BUILD/cli/tilecast" train --model nvidia-half ${TILECAST_TRAIN_OUT:+--out "$TILECAST_TRAIN_OUT"} "$@"
