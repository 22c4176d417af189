#!/usr/bin/env bash
# A diagnosis, not part of CI or of the shipped model: how much of each generalization fold's
# GEMM error is the library's tile choice. Each fold's weights are trained as the protocol
# trains them (`tilecast train --hold-out`, seed 1), then its held-out GPUs' GEMM test rows are
# forecast twice: with the fold's tile table (the protocol: a GPU of an unmeasured cuBLAS
# generation takes the nearest measured GPU's tiles) and with a table that also holds the
# held-out GPUs' own kernel names (train and test CSVs: which tile cuBLAS ran, no timings).
# The second is an oracle, not a forecast: it says what knowing the new generation's cuBLAS
# heuristics would be worth (docs/generalization.md, "What the GEMM misses are made of").
# Usage: scripts/experiments/fold_gemm_tiles.sh OUT_DIR [--folds Pascal,Volta,Turing,Ampere]
# About 1 minute a fold on 2 cores; deterministic. Reads ../shared in place.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 1 ] || { echo "usage: scripts/experiments/fold_gemm_tiles.sh OUT_DIR [--folds LIST]" >&2; exit 2; }
OUT="$1"
shift
FOLDS=Pascal,Volta,Turing,Ampere
while [ $# -gt 0 ]; do
  case "$1" in
    --folds) FOLDS="${2:?--folds takes a list like Volta,Ampere}"; shift 2 ;;
    *) echo "fold_gemm_tiles: unknown argument '$1' (allowed: --folds LIST)" >&2; exit 2 ;;
  esac
done
CLI="${TILECAST_CLI:-build/cli/tilecast}"
if [ ! -x "$CLI" ]; then bash scripts/build_native.sh; fi
DATA="${TILECAST_DATA_DIR:-../shared/data/neusight}"
. scripts/nvidia_training_csvs.sh
nvidia_training_csvs "$DATA" "$CLI"
TEST=("$DATA/nvidia/kernels/test/bmm.csv" "$DATA/nvidia/kernels/test/linear.csv")
mkdir -p "$OUT/oracle-table"

# Every GPU's own tiles: the training CSVs and the GEMM test CSVs, kernel names only.
"$CLI" train --devices "$DATA/devices" --out "$OUT/oracle-table" --tile-table-only \
  "${files[@]}" "${TEST[@]}" >&2

held_out() {  # a fold's GPUs (the A100 80GB is held out of every training anyway)
  case "$1" in
    Pascal) echo "Tesla P100-PCIE-16GB,Tesla P4" ;;
    Volta) echo "Tesla V100-PCIE-32GB" ;;
    Turing) echo "Tesla T4" ;;
    Ampere) echo "NVIDIA A100-PCIE-40GB,NVIDIA A100 80GB PCIe" ;;
    *) echo "fold_gemm_tiles: unknown fold '$1' (allowed: Pascal, Volta, Turing, Ampere)" >&2; return 2 ;;
  esac
}

IFS=, read -r -a fold_list <<<"$FOLDS"
folds=()
for fold in "${fold_list[@]}"; do
  hold="$(held_out "$fold")"
  folds+=("$fold=$hold")
  dir="$OUT/$fold"
  mkdir -p "$dir/fold" "$dir/oracle"
  echo "fold $fold: training without $hold" >&2
  "$CLI" train --devices "$DATA/devices" --out "$dir/fold" --hold-out "$hold" "${files[@]}" \
    >"$dir/train.log" 2>&1
  cp "$dir/fold/kernel_weights.json" "$dir/oracle/"
  cp "$OUT/oracle-table/tile_table.json" "$dir/oracle/"
  for table in fold oracle; do
    "$CLI" eval-kernels --devices "$DATA/devices" --weights "$dir/$table" --rows "${TEST[@]}" \
      >"$dir/$table-rows.csv"
  done
done

# Three tables from the rows: MAPE with either table; where the fold's tile is the one cuBLAS
# ran (the MxN in the kernel's name) and where not; rows cuBLAS ran with a square tile, by how
# much that tile pads the output.
python3 - "$OUT" "${folds[@]}" <<'EOF'
import csv, math, re, sys
from collections import defaultdict

out, folds = sys.argv[1], dict(arg.split("=", 1) for arg in sys.argv[2:])
names = {}  # CSV path -> its rows' kernel names


def rows(fold, table):
    """The fold's held-out GPUs' rows: (row, error, the (M, N) tile cuBLAS ran or None)."""
    gpus = folds[fold].split(",")
    with open(f"{out}/{fold}/{table}-rows.csv", newline="") as f:
        for row in csv.DictReader(f):
            if row["gpu"] not in gpus:
                continue
            path, line = row["origin"].rsplit(":", 1)
            if path not in names:
                with open(path, newline="") as g:
                    names[path] = [r["Kernel Name"] for r in csv.DictReader(g)]
            ran = re.search(r"sgemm_(\d+)x(\d+)", names[path][int(line) - 2])
            err = float(row["predicted_ms"]) / float(row["measured_ms"]) - 1
            yield row, err, ran.groups() if ran else None


def cells(errors):
    if not errors:
        return "0"
    return (f"{len(errors)}, {100 * sum(map(abs, errors)) / len(errors):.1f}, "
            f"{100 * sum(errors) / len(errors):+.1f}")


def mape(errors):
    return f"{100 * sum(map(abs, errors)) / len(errors):.1f}"


by_table, by_tile, by_padding = defaultdict(list), defaultdict(list), defaultdict(list)
for fold in folds:
    for table in ("fold", "oracle"):
        for row, err, ran in rows(fold, table):
            by_table[(fold, row["gpu"], row["op"], table)].append(err)
            if table != "fold":
                continue
            same = ran is not None and row["tile"].split()[0] == "x".join(ran)
            by_tile[(fold, row["gpu"], row["op"], same)].append(err)
            if ran is not None and ran[0] == ran[1]:  # a square tile over the M x K output
                t = int(ran[0])
                _, m, _, k = (int(v) for v in row["dims"].split(","))
                pad = math.ceil(m / t) * t * math.ceil(k / t) * t / (m * k)
                by_padding[(fold, row["gpu"], row["op"], f"{t}x{t}", pad >= 1.9)].append(err)

print("| fold | GPU | op | n | fold's tiles (the protocol) | the GPU's own tiles (oracle) |")
print("| --- | --- | --- | --- | --- | --- |")
for key in sorted({k[:3] for k in by_table}):
    fold_errors, oracle_errors = by_table[key + ("fold",)], by_table[key + ("oracle",)]
    print(f"| {' | '.join(key)} | {len(fold_errors)} | {mape(fold_errors)} | {mape(oracle_errors)} |")

print()
print("| fold | GPU | op | rows given cuBLAS's tile: n, MAPE %, signed % "
      "| rows given another tile: n, MAPE %, signed % |")
print("| --- | --- | --- | --- | --- |")
for key in sorted({k[:3] for k in by_tile}):
    print(f"| {' | '.join(key)} | {cells(by_tile[key + (True,)])} | {cells(by_tile[key + (False,)])} |")

print()
print("| fold | GPU | op | tile cuBLAS ran | output padded 1.9x or more: n, MAPE %, signed % "
      "| less: n, MAPE %, signed % |")
print("| --- | --- | --- | --- | --- | --- |")
for key in sorted({k[:4] for k in by_padding}):
    print(f"| {' | '.join(key)} | {cells(by_padding[key + (True,)])} "
          f"| {cells(by_padding[key + (False,)])} |")
EOF
