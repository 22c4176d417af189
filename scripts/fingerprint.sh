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
# The other replay paths: half precision and compiled single-GPU forecasts, serving, multi-GPU
# training and the plan search, and single half-precision kernels on NVIDIA and AMD GPUs.
: >"$out/paths.jsonl"
run() { { "$cli" "$@" --json 2>&1 || echo "exit $?"; } | tr -d "\\n" >>"$out/paths.jsonl"; echo >>"$out/paths.jsonl"; }
for gpu in h100-sxm a100-80gb-sxm l4 mi300x; do
  for m in llama3-8b gpt2-large mixtral-8x7b; do
    run forecast --gpu "$gpu" --model "$m" --batch 2 --seq 512 --mode training --precision bf16
    run forecast --gpu "$gpu" --model "$m" --batch 2 --seq 512 --mode inference --precision fp16 --compile
    run forecast --gpu "$gpu" --model "$m" --batch 4 --seq 1024 --mode decode --precision bf16
    run serve --gpu "$gpu" --model "$m" --prompt 512 --output 128 --batch 8 --precision bf16
    run serve --gpu "$gpu" --model "$m" --prompt 256 --output 64 --batch 4 --tp 2 --engine eager
  done
  run kernel --gpu "$gpu" --op rmsnorm --dims 16384,8192 --precision fp16
  run kernel --gpu "$gpu" --op linear --dims 1,4096,4096,4096 --precision bf16
done
run forecast --gpu a100-40gb-sxm --model gpt2-large --batch 8 --seq 1024 --mode training --gpus 8 \
  --tp 2 --pp 2 --dp 2 --microbatches 4 --zero 1 --recompute selective --system dgx-a100
run forecast --gpu h100-sxm --model llama2-7b --batch 32 --seq 2048 --mode training --precision bf16 \
  --gpus 8 --tp 2 --dp 4 --zero 3 --system dgx-h100
run plan --model gpt2-large --system dgx-a100 --global-batch 32 --seq 1024 --top 5
echo "fingerprint: $(wc -l <"$out/kernels-tilecast.csv") kernel rows, $(wc -l <"$out/zoo.jsonl") zoo forecasts, $(wc -l <"$out/paths.jsonl") other paths in $out"
