#!/usr/bin/env bash
# Cross-GPU generalization of the FP16 models (issue 12 item 1): train on the vidur data of one
# GPU, forecast every operator row of the other, both ways; prints MAPE per operator beside the
# roofline as a Markdown table (docs/accuracy.md's), GEMMs by the analytic tensor-core model as
# shipped, then the projections by the learned GEMM net of the same run beside it (the model
# the analytic one replaced; docs/fp16-model.md). Each direction retrains with the shipped
# settings (seed 1), about 20 s on 2 cores. Usage: scripts/eval_fp16_cross_gpu.sh [BUILD_DIR]
# TILECAST_JSON_OUT=FILE also writes both directions' eval-ops JSON there (make eval-generalization:
# docs/fp16-cross-gpu.json, which the calculator's accuracy report summarises).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${1:-build}"
cli="$BUILD/cli/tilecast"
VIDUR="${TILECAST_VIDUR_DIR:-../shared/data/vidur}/compute"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
declare -A spec=([a100]=a100-80gb-sxm [a40]=a40)
for pair in "a100 a40" "a40 a100"; do
  set -- $pair
  "$cli" train-fp16 --out "$tmp/$1.json" --gemm-out "$tmp/$1-gemm.json" --seed 1 \
    "${spec[$1]}=$VIDUR/$1" 2>/dev/null
  "$cli" eval-ops --gpu "${spec[$2]}" --vidur "$VIDUR/$2" --weights "$tmp/$1.json" \
    --gemm "$tmp/$1-gemm.json" --json >"$tmp/$1-on-$2.json"
  "$cli" eval-ops --gpu "${spec[$2]}" --vidur "$VIDUR/$2" --weights "$tmp/$1.json" --json \
    >"$tmp/$1-on-$2-net.json"
done
python3 - "$tmp" "${TILECAST_JSON_OUT:-}" <<'PY'
import json, sys
d = sys.argv[1]
if sys.argv[2]:
    dirs = [{"train_gpu": tr, "test_gpu": te, "analytic_gemm": json.load(open(f"{d}/{a}-on-{b}.json")),
             "learned_gemm": json.load(open(f"{d}/{a}-on-{b}-net.json"))}
            for a, b, tr, te in (("a100", "a40", "a100-80gb-sxm", "a40"), ("a40", "a100", "a40", "a100-80gb-sxm"))]
    with open(sys.argv[2], "w") as f:
        json.dump({"format": "tilecast-cross-gpu-1",
                   "what": "FP16 models trained on vidur's operator timings of one GPU (seed 1), every "
                           "operator row of the other GPU forecast: eval-ops JSON, GEMMs by the analytic "
                           "tensor-core model as shipped and by the learned net",
                   "command": "make eval-generalization (bash scripts/eval_fp16_cross_gpu.sh)",
                   "data": "../shared/data/vidur/compute/{a100,a40}",
                   "directions": dirs}, f, indent=1)
        f.write("\n")
a = json.load(open(f"{d}/a100-on-a40.json"))
b = json.load(open(f"{d}/a40-on-a100.json"))
print("| op | train A100 → test A40 | train A40 → test A100 |")
print("|---|---|---|")
for ga, gb in zip(a["groups"], b["groups"]):
    assert ga["op"] == gb["op"]
    print(f"| {ga['op']} | {ga['mape_pct']:.1f} ({ga['roofline_mape_pct']:.1f}) "
          f"| {gb['mape_pct']:.1f} ({gb['roofline_mape_pct']:.1f}) |")
print(f"| all rows | {a['overall_mape_pct']:.1f} | {b['overall_mape_pct']:.1f} |")
na = {g["op"]: g for g in json.load(open(f"{d}/a100-on-a40-net.json"))["groups"]}
nb = {g["op"]: g for g in json.load(open(f"{d}/a40-on-a100-net.json"))["groups"]}
print()
print("| projection: analytic GEMM / learned net | train A100 → test A40 | train A40 → test A100 |")
print("|---|---|---|")
for ga, gb in zip(a["groups"], b["groups"]):
    if not ga["op"].endswith("_proj"):
        continue
    print(f"| {ga['op']} | {ga['mape_pct']:.1f} / {na[ga['op']]['mape_pct']:.1f} "
          f"| {gb['mape_pct']:.1f} / {nb[gb['op']]['mape_pct']:.1f} |")
PY
