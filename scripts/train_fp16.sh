#!/usr/bin/env bash
# Full training of the FP16/BF16 kernel models on both GPUs of the vidur compute data (A100 80GB
# as the SXM catalog entry, A40): writes core/data/kernel_weights_fp16.json (the nets) and
# core/data/tensor_gemm_fp16.json (the analytic tensor-core GEMM model the registry serves for
# GEMMs). Deterministic for a seed. Usage: scripts/train_fp16.sh [BUILD_DIR] [extra flags].
# Rebuild afterwards to embed them.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${1:-build}"
shift || true
VIDUR="${TILECAST_VIDUR_DIR:-../shared/data/vidur}/compute"
OUT="${TILECAST_TRAIN_OUT:-core/data}"
"$BUILD/cli/tilecast" train-fp16 --out "$OUT/kernel_weights_fp16.json" \
  --gemm-out "$OUT/tensor_gemm_fp16.json" --seed 1 "$@" \
  a100-80gb-sxm="$VIDUR/a100" a40="$VIDUR/a40"
