#!/usr/bin/env bash
# Cross-GPU generalization of the AMD models (issue 13 item 3): train on the NeuSight data of one
# of MI100 (CDNA 1) / MI210 (CDNA 2) with the shipped settings (scripts/train_amd.sh, seed 1,
# the other GPU held out), then forecast every kernel row of the other GPU: its GEMM test rows
# (amd/kernels/test) and its vector-op rows (amd/kernels/train). Prints MAPE per op beside the
# roofline as a Markdown table, both ways; and the other GPU's whole-model labels (eval-e2e with
# the held-out weights): mean absolute error per mode, and how many fall inside the 80 % band the
# forecasts carry (fitted on the NVIDIA protocol's architectures) at what width, kernels and whole
# models alike. ~4 min on 2
# cores. Usage: scripts/eval_amd_cross_gpu.sh [BUILD_DIR]
# TILECAST_ROWS_DIR=DIR also writes each direction's GEMM rows (eval-kernels --rows) as
# DIR/<train>-on-<test>.csv, which scripts/experiments/amd_gemm_residuals.py breaks down.
# TILECAST_AMD_GEMM=net forecasts the GEMMs with the learned net instead of the analytic model
# (the figures before it). TILECAST_JSON_OUT=FILE also writes both directions' eval-kernels JSON
# there (make eval-generalization: docs/amd-cross-gpu.json, summarised by the accuracy report).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${1:-build}"
cli="$BUILD/cli/tilecast"
DATA="${TILECAST_DATA_DIR:-../shared/data/neusight}"
AMD="$DATA/amd/kernels"
tmp=$(mktemp -d)
models=(--model amd-fp32)
[ "${TILECAST_AMD_GEMM:-analytic}" = net ] || models+=(--model amd-fp32-gemm)
trap 'rm -rf "$tmp"' EXIT
for pair in "MI100 MI210" "MI210 MI100"; do
  set -- $pair
  TILECAST_TRAIN_OUT="$tmp/$1" bash scripts/train_amd.sh "$BUILD" --hold-out "AMD Instinct $2" \
    >/dev/null 2>&1
  files=()
  for op in linear bmm; do files+=("$AMD/test/$op/AMD Instinct $2.csv"); done
  for op in add addu mul mulu div divu pow powu relu gelu tanh softmax ln; do
    files+=("$AMD/train/$op/AMD Instinct $2.csv")
  done
  "$cli" eval-kernels --devices "$DATA/devices" "${models[@]}" --model-dir "$tmp/$1" --json \
    "${files[@]}" >"$tmp/$1-on-$2.json" 2>/dev/null
  mkdir -p "$tmp/labels-$2"
  ln -s "$(cd "$DATA/labels/AMD_Instinct_$2" && pwd)" "$tmp/labels-$2/AMD_Instinct_$2"
  "$cli" eval-e2e --devices "$DATA/devices" --models "$DATA/models" --labels "$tmp/labels-$2" \
    "${models[@]}" --model-dir "$tmp/$1" --json >"$tmp/$1-on-$2-e2e.json" 2>/dev/null
  if [ -n "${TILECAST_ROWS_DIR:-}" ]; then
    mkdir -p "$TILECAST_ROWS_DIR"
    "$cli" eval-kernels --devices "$DATA/devices" "${models[@]}" --model-dir "$tmp/$1" \
      --rows "${files[0]}" "${files[1]}" >"$TILECAST_ROWS_DIR/$1-on-$2.csv" 2>/dev/null
  fi
done
python3 - "$tmp" "${TILECAST_JSON_OUT:-}" "${TILECAST_AMD_GEMM:-analytic}" <<'PY'
import json, sys
d = sys.argv[1]
a = json.load(open(f"{d}/MI100-on-MI210.json"))
b = json.load(open(f"{d}/MI210-on-MI100.json"))
def whole(path):
    """Per mode: cases, MAE, and the 80 % band's coverage and mean width (of the forecast)."""
    cases = json.load(open(path))["cases"]
    out = []
    for mode in sorted({c["mode"] for c in cases}):
        cs = [c for c in cases if c["mode"] == mode]
        banded = [c for c in cs if c["band_high_ms"] > 0]
        inside = sum(c["band_low_ms"] <= c["measured_ms"] <= c["band_high_ms"] for c in banded)
        width = sum((c["band_high_ms"] - c["band_low_ms"]) / c["predicted_ms"] for c in banded)
        out.append({"mode": mode, "n": len(cs),
                    "mae_pct": sum(abs(c["error_pct"]) for c in cs) / len(cs),
                    "mean_error_pct": sum(c["error_pct"] for c in cs) / len(cs),
                    "banded": len(banded), "inside_band": inside,
                    "mean_band_width_pct": 100 * width / len(banded) if banded else 0})
    return out
wa = whole(f"{d}/MI100-on-MI210-e2e.json")
wb = whole(f"{d}/MI210-on-MI100-e2e.json")
if sys.argv[2]:
    with open(sys.argv[2], "w") as f:
        json.dump({"format": "tilecast-cross-gpu-1",
                   "what": "AMD models trained (scripts/train_amd.sh, seed 1) on the NeuSight kernel rows "
                           "of one of MI100 / MI210, every kernel row of the other GPU forecast: "
                           "eval-kernels JSON (GEMMs: test rows; vector ops: the other GPU's training rows)",
                   "command": "make eval-generalization (bash scripts/eval_amd_cross_gpu.sh)",
                   "data": "../shared/data/neusight/amd/kernels",
                   "gemm": sys.argv[3],
                   "whole_models": "the test GPU's whole-model labels (../shared/data/neusight/labels) by "
                                   "eval-e2e with the held-out weights: MAE and signed mean error per mode, "
                                   "and the cases inside the 80 % band the forecast carries (the NVIDIA "
                                   "protocol's, core/data/error_bands.json) with its mean width",
                   "directions": [{"train_gpu": "AMD Instinct MI100", "test_gpu": "AMD Instinct MI210", "eval": a,
                                   "whole": wa},
                                  {"train_gpu": "AMD Instinct MI210", "test_gpu": "AMD Instinct MI100", "eval": b,
                                   "whole": wb}]},
                  f, indent=1)
        f.write("\n")
def by_op(r):
    return {g["op"]: g for g in r["groups"]}
ga, gb = by_op(a), by_op(b)
print("| op | train MI100 → test MI210 | train MI210 → test MI100 |")
print("|---|---|---|")
for op in ga:
    x, y = ga[op], gb[op]
    print(f"| {op} | {x['mape_pct']:.1f} ({x['roofline_mape_pct']:.1f}) "
          f"| {y['mape_pct']:.1f} ({y['roofline_mape_pct']:.1f}) |")
band = lambda r: (f"{r['band']['inside_pct']:.1f} % of {r['band']['n']} in the 80 % band, "
                  f"width {r['band']['mean_width_pct']:.0f} %") if r.get("band") else "no band"
print(f"| kernels in their 80 % band | {band(a)} | {band(b)} |")
print()
print("| whole models | train MI100 → test MI210 | train MI210 → test MI100 |")
print("|---|---|---|")
for x, y in zip(wa, wb):
    cell = lambda w: (f"{w['mae_pct']:.1f} % MAE ({w['mean_error_pct']:+.1f}), "
                      f"{w['inside_band']}/{w['banded']} in the 80 % band, width {w['mean_band_width_pct']:.0f} %")
    print(f"| {x['mode']} (n {x['n']} / {y['n']}) | {cell(x)} | {cell(y)} |")
PY
