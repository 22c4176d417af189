#!/usr/bin/env bash
# Every forecast the repo can check, at full precision, into one folder: all kernel test
# rows (learned and roofline), every end-to-end label, and the zoo on a few GPUs. Two
# folders from before and after a refactor must be identical (`diff -r`); this is how
# "forecasts bit-identical" is checked. Usage: scripts/fingerprint.sh OUT_DIR [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: scripts/fingerprint.sh OUT_DIR [BUILD_DIR]}"
cli="${2:-build}/cli/tilecast"
data="${TILECAST_DATA_DIR:-../shared/data/neusight}"
mkdir -p "$out"
for p in tilecast roofline; do
  "$cli" eval-kernels --devices "$data/devices" --predictor "$p" --rows \
    "$data"/nvidia/kernels/test/*.csv >"$out/kernels-$p.csv"
done
"$cli" eval-e2e --devices "$data/devices" --models "$data/models" --labels "$data/labels" \
  --json >"$out/e2e.json"
models=$("$cli" models --json | grep -o '"id": *"[^"]*"' | sed 's/.*"\([^"]*\)"$/\1/')
: >"$out/zoo.jsonl"
for gpu in h100-sxm a100-40gb-pcie t4 mi250-gcd; do
  for m in $models; do
    for mode in inference training; do
      "$cli" forecast --gpu "$gpu" --model "$m" --batch 2 --seq 512 --mode "$mode" --json \
        | tr -d '\n' >>"$out/zoo.jsonl" || echo "error $gpu $m $mode" >>"$out/zoo.jsonl"
      echo >>"$out/zoo.jsonl"
    done
  done
done
echo "fingerprint: $(wc -l <"$out/kernels-tilecast.csv") kernel rows, $(wc -l <"$out/zoo.jsonl") zoo forecasts in $out"
