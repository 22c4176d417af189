#!/usr/bin/env bash
# Trains the AMD Instinct FP32 kernel models from the NeuSight MI100 and MI210 measurements by
# their manifests' recipes: `tilecast train --model amd-fp32` (the nets and the GEMM tile table,
# core/data/models/amd-fp32) then `tilecast train --model amd-fp32-gemm` (the analytic GEMM model
# with that tile table, core/data/models/amd-fp32-gemm). TILECAST_TRAIN_OUT=DIR writes all into
# DIR. Deterministic for a seed; ~2 min on 2 cores.
# Usage: scripts/train_amd.sh [BUILD_DIR] [extra `tilecast train` flags, e.g. --hold-out NAME]
# (the GEMM fit takes the same --hold-out). Rebuild afterwards to embed the new weights.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${1:-build}"
shift || true
if [ ! -x "$BUILD/cli/tilecast" ] && [ "$BUILD" = build ]; then bash scripts/build_native.sh; fi
out=()
if [ -n "${TILECAST_TRAIN_OUT:-}" ]; then out=(--out "$TILECAST_TRAIN_OUT"); fi
"$BUILD/cli/tilecast" train --model amd-fp32 "${out[@]}" "$@"
if [[ " $* " == *" --tile-table-only "* ]]; then exit 0; fi
held=()  # the GEMM fit takes the same held-out GPUs, nothing else
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  if [ "${args[i]}" = --hold-out ]; then held+=(--hold-out "${args[i + 1]}"); fi
done
"$BUILD/cli/tilecast" train --model amd-fp32-gemm "${out[@]}" "${held[@]}"
