#!/usr/bin/env bash
# Trains the AMD Instinct FP32 kernel models into core/data/models/amd-fp32 (kernel_weights.json,
# tile_table.json) and (the analytic GEMM model, `tilecast train-amd-gemm` with that tile table)
# core/data/models/amd-fp32-gemm/gemm.json from the NeuSight MI100 and MI210 measurements: the vector
# ops' training CSVs and, for GEMMs, the only AMD GEMM measurements the data carries, the
# test CSVs amd/kernels/test/{bmm,linear} (the cross-GPU check, scripts/eval_amd_cross_gpu.sh,
# trains on one GPU's and tests on the other's). Deterministic for a seed; ~2 min on 2 cores.
# Usage: scripts/train_amd.sh [BUILD_DIR] [extra `tilecast train` flags, e.g. --hold-out NAME]
# (TILECAST_TRAIN_OUT=DIR writes DIR/kernel_weights_amd.json, DIR/tile_table_amd.json and
# DIR/gemm_amd_fp32.json).
# Rebuild afterwards to embed the new weights.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${1:-build}"
shift || true
if [ ! -x "$BUILD/cli/tilecast" ] && [ "$BUILD" = build ]; then bash scripts/build_native.sh; fi
DATA="${TILECAST_DATA_DIR:-../shared/data/neusight}"
AMD="$DATA/amd/kernels"
# TILECAST_TRAIN_OUT=DIR: DIR/kernel_weights_amd.json, tile_table_amd.json, gemm_amd_fp32.json;
# else the model folders core/data/models/amd-fp32 and amd-fp32-gemm.
if [ -n "${TILECAST_TRAIN_OUT:-}" ]; then
  mkdir -p "$TILECAST_TRAIN_OUT"
  weights="$TILECAST_TRAIN_OUT/kernel_weights_amd.json"
  table="$TILECAST_TRAIN_OUT/tile_table_amd.json"
  gemm="$TILECAST_TRAIN_OUT/gemm_amd_fp32.json"
else
  weights=core/data/models/amd-fp32/kernel_weights.json
  table=core/data/models/amd-fp32/tile_table.json
  gemm=core/data/models/amd-fp32-gemm/gemm.json
fi
files=()
for op in linear bmm; do
  for gpu in "AMD Instinct MI100" "AMD Instinct MI210"; do files+=("$AMD/test/$op/$gpu.csv"); done
done
for op in add addu mul mulu div divu pow powu relu gelu tanh softmax ln; do
  for gpu in "AMD Instinct MI100" "AMD Instinct MI210"; do files+=("$AMD/train/$op/$gpu.csv"); done
done
files+=("$AMD/train/elem-curated.csv" "$AMD/train/softmax-curated.csv" "$AMD/train/ln-curated.csv")
tmp="$BUILD/train-amd"  # a fixed path: the weights record the command, which must not vary
mkdir -p "$tmp"
rm -f "$tmp/kernel_weights.json" "$tmp/tile_table.json"
# Softmax and layer norm learn against the element-wise streaming time without its launch cost:
# chosen by the AMD checks (docs/amd-model.md, "Row kernels' reference"); NVIDIA keeps it.
"$BUILD/cli/tilecast" train --devices "$DATA/devices" --out "$tmp" --seed 1 \
  --row-reference without-launch "$@" "${files[@]}"
mkdir -p "$OUT"
# (--tile-table-only writes the tile table alone)
if [ -f "$tmp/kernel_weights.json" ]; then
  mv "$tmp/kernel_weights.json" "$OUT/kernel_weights_amd.json"
  echo "wrote $OUT/kernel_weights_amd.json"
fi
mv "$tmp/tile_table.json" "$OUT/tile_table_amd.json"
echo "wrote $OUT/tile_table_amd.json"
if [ -f "$OUT/kernel_weights_amd.json" ] && [[ " $* " != *" --tile-table-only "* ]]; then
  held=()  # the GEMM fit takes the same held-out GPUs
  args=("$@")
  for ((i = 0; i < ${#args[@]}; i++)); do
    if [ "${args[i]}" = --hold-out ]; then held+=(--hold-out "${args[i + 1]}"); fi
  done
  "$BUILD/cli/tilecast" train-amd-gemm --devices "$DATA/devices" \
    --tile-table "$table" --out "$gemm" "${held[@]}" \
    "$AMD"/test/{linear,bmm}/*.csv
fi
