#!/usr/bin/env bash
# Full training of the FP16/BF16 kernel models on both GPUs of the vidur compute data (A100 80GB
# as the SXM catalog entry, A40): writes core/data/models/nvidia-half/kernel_weights.json (the
# nets) and core/data/models/nvidia-half-gemm/tensor_gemm.json (the analytic tensor-core GEMM model the registry serves for
# GEMMs). Deterministic for a seed. Usage: scripts/train_fp16.sh [BUILD_DIR] [extra flags].
# Rebuild afterwards to embed them.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${1:-build}"
shift || true
VIDUR="${TILECAST_VIDUR_DIR:-../shared/data/vidur}/compute"
# TILECAST_TRAIN_OUT=DIR: DIR/kernel_weights_fp16.json and tensor_gemm_fp16.json; else the model
# folders core/data/models/nvidia-half and nvidia-half-gemm.
if [ -n "${TILECAST_TRAIN_OUT:-}" ]; then
  weights="$TILECAST_TRAIN_OUT/kernel_weights_fp16.json"
  gemm="$TILECAST_TRAIN_OUT/tensor_gemm_fp16.json"
else
  weights=core/data/models/nvidia-half/kernel_weights.json
  gemm=core/data/models/nvidia-half-gemm/tensor_gemm.json
fi
"$BUILD/cli/tilecast" train-fp16 --out "$weights" --gemm-out "$gemm" --seed 1 "$@" \
  a100-80gb-sxm="$VIDUR/a100" a40="$VIDUR/a40"
