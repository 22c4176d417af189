#!/usr/bin/env bash
# A lent GPU session's measurements, prepared as one call (docs/measure.md, "Where the time
# goes"): first the kernels a serving forecast rests on (scripts/measure/serving_kernels.py:
# BF16 and FP8 linears at serving shapes, decode attention, copy bandwidth; a quarter of the
# time) and the broadcast add of scripts/measure/strided_elementwise.py (20 s), then the
# whole-model cases whose forecasts miss most, measured twice with a profiled step each, once
# with a warm caching allocator (as the kit always measured; half the time) and once emptied
# before every run (as NeuSight's harness did; the last quarter), so one session says where a
# Switch Transformer step's time goes and what allocation costs a forward.
#
#   bash scripts/measure/device_session.sh OUT [TOTAL_S]     # default 440 s
#
# Writes OUT/serving/, OUT/strided/, OUT/warm/ and OUT/cold/ (kit folders, the last two with
# profiles/), then, with a built CLI, OUT/compare.txt (scripts/profile_vs_forecast.py on both)
# and OUT/forward_excess.txt (scripts/forward_excess.py). Every case is a zoo model; `--cases`
# checks them up front.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT="${1:?usage: scripts/measure/device_session.sh OUT [TOTAL_S]}"
TOTAL_S="${2:-440}"
# Switch Transformer at the three sequence lengths of its H200 labels (the largest misses), the
# two host-bound small training steps and the A100 80GB's allocation-bound shapes.
CASES="switch-xl-4:inf:512:4,switch-xl-4:inf:2048:1,switch-xl-4:train:512:2"
CASES+=",bert-large:train:512:2,opt-tiny:train:2048:2,bert-base:inf:512:8"
CASES+=",gpt2-large:train:1024:1,gpt2-large:train:1024:4"
quarter=$((TOTAL_S / 4))
mkdir -p "$OUT"
python3 scripts/measure/serving_kernels.py --out "$OUT/serving" --budget-s "$quarter" ||
  echo "serving kernels failed; going on" >&2
# the strided (broadcast) add the Switch's position bias runs, beside the contiguous one
python3 scripts/measure/strided_elementwise.py --out "$OUT/strided" --budget-s 20 ||
  echo "strided element-wise failed; going on" >&2
for mode in warm cold; do
  extra=()
  budget=$((2 * quarter))
  if [ "$mode" = cold ]; then extra=(--empty-cache-each-run) budget=$quarter; fi
  python3 scripts/measure/measure.py --out "$OUT/$mode" --budget-s "$budget" --kernels-share 0 \
    --no-kernel-names --profile-labels --cases "$CASES" "${extra[@]}" ||
    echo "$mode labels failed; going on" >&2
done
if [ -x build/cli/tilecast ]; then
  for mode in warm cold; do
    echo "== $mode" >>"$OUT/compare.txt"
    python3 scripts/profile_vs_forecast.py "$OUT/$mode" >>"$OUT/compare.txt" 2>&1 || true
  done
  python3 scripts/forward_excess.py "$OUT/warm" "$OUT/cold" >"$OUT/forward_excess.txt" 2>&1 || true
fi
echo "wrote $OUT/warm and $OUT/cold"
