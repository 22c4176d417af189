#!/usr/bin/env bash
# An experiment, not part of CI or of the shipped model: the generalization protocol's four
# folds with the H200's own kernel measurements (data/measured/h200/fp32-seed0 and -seed1) added
# to every fold's training rows. Judges "more diverse training data" (issue 10 item 4) for the
# one newer-generation GPU measured here; docs/generalization.md, "Tried on the protocol and not kept".
# Usage: scripts/experiments/h200_in_training.sh OUT_DIR [--min-us N] [--seeds 1,2,3] [--full-model]
#   --min-us N: train only on H200 rows measured at >= N us (rows near the measuring host's
#   launch floor teach that host's floor, 14.5 us there against NeuSight's 25-41 us).
#   --full-model: instead of the folds, train the shipped model's inputs plus the H200 rows
#   (seed 1) into OUT_DIR/full-model and evaluate the H200 with it and with the committed
#   weights: the kernels of fp32-seed2-switch (a shape seed no training row has) and every
#   H200 label. About 2 minutes.
# Writes OUT_DIR/h200-seedN.json per seed (the protocol's report) and prints their seed spread.
# About 4 minutes a seed on 2 cores, two seeds side by side. Reads ../shared in place; the
# temporary data folder holds links only.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 1 ] || { echo "usage: scripts/experiments/h200_in_training.sh OUT_DIR [--min-us N] [--seeds 1,2,3] [--full-model]" >&2; exit 2; }
OUT="$1"
shift
MIN_US=0
SEEDS=1,2,3
FULL=0
while [ $# -gt 0 ]; do
  case "$1" in
    --min-us) MIN_US="${2:?--min-us takes a number of microseconds}"; shift 2 ;;
    --seeds) SEEDS="${2:?--seeds takes a list like 1,2,3}"; shift 2 ;;
    --full-model) FULL=1; shift ;;
    *) echo "h200_in_training: unknown argument '$1' (allowed: --min-us N, --seeds LIST, --full-model)" >&2; exit 2 ;;
  esac
done
[[ "$MIN_US" =~ ^[0-9]+([.][0-9]+)?$ ]] || { echo "h200_in_training: --min-us '$MIN_US' is not a number" >&2; exit 2; }
[[ "$SEEDS" =~ ^[0-9]+(,[0-9]+)*$ ]] || { echo "h200_in_training: --seeds '$SEEDS' is not a list like 1,2,3" >&2; exit 2; }
CLI="${TILECAST_CLI:-build/cli/tilecast}"
if [ ! -x "$CLI" ]; then bash scripts/build_native.sh; fi
DATA="$(cd "${TILECAST_DATA_DIR:-../shared/data/neusight}" && pwd)"
H200="$(pwd)/data/measured/h200"
mkdir -p "$OUT"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

# The dataset, linked, with the H200's device file beside its devices.
mkdir -p "$TMP/data/devices" "$TMP/h200-train"
for entry in "$DATA"/*; do
  [ "$(basename "$entry")" = devices ] || ln -s "$entry" "$TMP/data/$(basename "$entry")"
done
for f in "$DATA"/devices/*.json "$H200"/fp32-seed0/devices/*.json; do ln -s "$f" "$TMP/data/devices/"; done

# The H200 rows to train on (both runs with kernel names, so the tile table learns its tiles).
python3 - "$H200" "$TMP/h200-train" "$MIN_US" <<'EOF'
import csv, glob, os, sys
src, dst, min_us = sys.argv[1], sys.argv[2], float(sys.argv[3])
kept = total = 0
for run in ("fp32-seed0", "fp32-seed1"):
    for path in sorted(glob.glob(os.path.join(src, run, "kernels", "*.csv"))):
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
        at = rows[0].index("Latency")
        keep = [r for r in rows[1:] if float(r[at]) * 1000 >= min_us]
        kept, total = kept + len(keep), total + len(rows) - 1
        with open(os.path.join(dst, f"{run}-{os.path.basename(path)}"), "w", newline="") as f:
            csv.writer(f).writerows([rows[0]] + keep)
print(f"h200_in_training: {kept} of {total} H200 kernel rows train (>= {min_us:g} us)", file=sys.stderr)
EOF

if [ "$FULL" = 1 ]; then
  . scripts/nvidia_training_csvs.sh
  nvidia_training_csvs "$DATA" "$CLI"
  mkdir -p "$OUT/full-model"
  "$CLI" train --devices "$DATA/devices" --devices "$H200/fp32-seed0/devices" \
    --out "$OUT/full-model" --seed 1 "${files[@]}" "$TMP"/h200-train/*.csv
  for weights in committed "$OUT/full-model"; do
    flag=()
    [ "$weights" = committed ] || flag=(--weights "$weights")
    echo "== weights: $weights"
    D="$H200/fp32-seed2-switch"
    "$CLI" eval-kernels --devices "$D/devices" "${flag[@]}" "$D"/kernels/*.csv | tail -n 1
    for run in fp32-seed0 fp32-seed1 fp32-seed2-switch; do
      D="$H200/$run"
      echo "-- $run labels"
      "$CLI" eval-e2e --devices "$D/devices" --models "$D/models" --labels "$D/labels" "${flag[@]}" |
        grep -A3 '^mean absolute error' | tail -n 2
    done
  done
  exit 0
fi

pids=()
for seed in ${SEEDS//,/ }; do
  echo "h200_in_training: seed $seed (log: $OUT/h200-seed$seed.log)" >&2
  TILECAST_CLI="$CLI" TILECAST_DATA_DIR="$TMP/data" bash scripts/eval_generalization.sh \
    --folds Pascal,Volta,Turing,Ampere --seed "$seed" --out "$OUT/h200-seed$seed.json" \
    "$TMP"/h200-train/*.csv >"$OUT/h200-seed$seed.log" 2>&1 &
  pids+=($!)
  if [ ${#pids[@]} -ge 2 ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
for p in "${pids[@]}"; do wait "$p"; done
reports=()
for seed in ${SEEDS//,/ }; do reports+=("$OUT/h200-seed$seed.json"); done
if [ ${#reports[@]} -ge 2 ]; then
  python3 scripts/experiments/seed_spread.py "${reports[@]}"
else
  echo "h200_in_training: wrote ${reports[0]} (give two seeds or more for their spread)" >&2
fi
