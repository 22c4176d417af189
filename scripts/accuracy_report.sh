#!/usr/bin/env bash
# Regenerates the calculator's accuracy report, web/public/accuracy.json (committed; `make reports`),
# from every evaluation the project has, each run here with the native CLI except the long ones,
# whose committed outputs it summarises (web/scripts/accuracy_merge.mjs says which is which):
#   docs/generalization.json     the leave-one-architecture-out protocol (make eval-generalization)
#   tilecast eval-kernels/-e2e   the H200 measured here (data/measured/h200), FP32 and BF16
#   docs/fp16-cross-gpu.json     FP16 models across A100 <-> A40 (make eval-generalization)
#   docs/amd-cross-gpu.json      AMD models across MI100 <-> MI210 (make eval-generalization)
#   scripts/serving_checks.mjs   serving against published figures (data/published/serving.json)
#   tilecast eval-published      Megatron runs of Korthikanti et al. 2022 (../shared/data/published)
#   tilecast eval-ops            FP16 operators of vidur's A100 and A40 (the FP16 models' training GPUs)
#   tilecast eval-e2e/-kernels   NeuSight's GPUs (whole models; single kernels of its test set)
# TILECAST_CLI (default build/cli/tilecast), TILECAST_DATA_DIR and TILECAST_SHARED_DIR override paths.
set -euo pipefail
cd "$(dirname "$0")/.."
cli="${TILECAST_CLI:-build/cli/tilecast}"
shared="${TILECAST_SHARED_DIR:-../shared/data}"
data="${TILECAST_DATA_DIR:-$shared/neusight}"
out="${1:-web/public/accuracy.json}"
[ -x "$cli" ] || { echo "accuracy_report: $cli is missing; run scripts/build_native.sh" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# NeuSight's GPUs.
"$cli" eval-e2e --devices "$data/devices" --models "$data/models" --labels "$data/labels" --json >"$tmp/e2e.json"
# The roofline side: from the same run when it carries it, else from a roofline run.
if ! grep -q '"roofline_ms"' "$tmp/e2e.json"; then
  "$cli" eval-e2e --devices "$data/devices" --models "$data/models" --labels "$data/labels" \
    --predictor roofline --json >"$tmp/e2e-roofline.json"
fi
"$cli" eval-kernels --devices "$data/devices" --json "$data"/nvidia/kernels/test/*.csv >"$tmp/kernels.json"
# The FP32 models' training CSVs (their recipe), to count test shapes also in the training rows.
"$cli" train --model nvidia-fp32 --data "$(dirname "$data")" --recipe | grep '\.csv$' |
  sed "s#^$(dirname "$data")/neusight#$data#" >"$tmp/train-csvs.txt"
ls "$data"/nvidia/kernels/test/*.csv >"$tmp/test-csvs.txt"

# The H200 measured here: FP32 runs (kernels, whole models), BF16 runs (kernels by the FP16/BF16
# models, one op at a time: an op no model serves is recorded with the CLI's reason).
h200=data/measured/h200
mkdir -p "$tmp/h200"
for run in fp32-seed0 fp32-seed1 fp32-seed2-switch; do
  d="$h200/$run"
  "$cli" eval-kernels --devices "$d/devices" --json "$d"/kernels/*.csv >"$tmp/h200/$run-kernels.json"
  "$cli" eval-e2e --devices "$d/devices" --models "$d/models" --labels "$d/labels" --json >"$tmp/h200/$run-e2e.json"
done
for run in bf16-seed0 bf16-seed0-labels; do
  d="$h200/$run"
  mkdir -p "$tmp/h200/$run/labels"
  # BF16 labels of pure BF16 models (model.to(torch.bfloat16)), as `forecast --precision bf16`
  # models them: inference as it is, a training step with --master-weights half (every kernel,
  # gradient and Adam state in BF16); one forecast each. eval-e2e forecasts FP32 labels only.
  for l in "$d"/labels/*/*-bf16.json; do
    [ -e "$l" ] || continue
    IFS=- read -r model mode seq batch _ <<<"$(basename "$l" .json)"
    case "$mode" in
      inf) args=(--mode inference) ;;
      train) args=(--mode training --master-weights half) ;;
      *) continue ;;
    esac
    "$cli" forecast --gpu "$(basename "$(dirname "$l")" | tr _ ' ')" --model "$d/models/$model.json" \
      "${args[@]}" --seq "$seq" --batch "$batch" --precision bf16 --json >"$tmp/h200/$run/labels/$(basename "$l")"
  done
  for f in "$d"/kernels-bf16/*.csv; do
    op="$(basename "$f" .csv)"
    "$cli" eval-kernels --devices "$d/devices" --model nvidia-fp32 --model nvidia-half \
      --model nvidia-half-gemm --json "$f" \
      >"$tmp/h200/$run/$op.json" 2>"$tmp/h200/$run/$op.err" || rm "$tmp/h200/$run/$op.json"
  done
done

# FP16 operators on the FP16 models' own training GPUs (vidur).
"$cli" eval-ops --gpu a100-80gb-sxm --vidur "$shared/vidur/compute/a100" --json >"$tmp/fp16-a100.json"
"$cli" eval-ops --gpu a40 --vidur "$shared/vidur/compute/a40" --json >"$tmp/fp16-a40.json"
# Megatron runs of Korthikanti et al. 2022; serving against published measurements.
"$cli" eval-published --file "$shared/published/korthikanti-2022.json" --json >"$tmp/published.json"
TILECAST_CLI="$cli" node scripts/serving_checks.mjs --json "$tmp/serving.json"

node web/scripts/accuracy_merge.mjs --version "$("$cli" --version)" --work "$tmp" >"$tmp/accuracy.json"
mv "$tmp/accuracy.json" "$out"
echo "accuracy_report: wrote $out"
