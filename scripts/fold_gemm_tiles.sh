#!/usr/bin/env bash
# A diagnosis, not part of CI or of the shipped model: how much of each generalization fold's
# GEMM error is the library's tile choice. Each fold's weights are trained as the protocol
# trains them (`tilecast train --hold-out`, seed 1), then its held-out GPUs' GEMM test rows are
# forecast twice: with the fold's tile table (the protocol: a GPU of an unmeasured cuBLAS
# generation takes the nearest measured GPU's tiles) and with a table that also holds the
# held-out GPUs' own kernel names (train and test CSVs: which tile cuBLAS ran, no timings).
# The second is an oracle, not a forecast: it says what knowing the new generation's cuBLAS
# heuristics would be worth (docs/generalization.md, "What the GEMM misses are made of").
# Usage: scripts/fold_gemm_tiles.sh OUT_DIR [--folds Pascal,Volta,Turing,Ampere]
# About 1 minute a fold on 2 cores; deterministic. Reads ../shared in place.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: scripts/fold_gemm_tiles.sh OUT_DIR [--folds LIST]" >&2; exit 2; }
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
nvidia_training_csvs "$DATA"
TEST=("$DATA/nvidia/kernels/test/bmm.csv" "$DATA/nvidia/kernels/test/linear.csv")
mkdir -p "$OUT/oracle-table"

# Every GPU's own tiles: the training CSVs and the GEMM test CSVs, kernel names only.
"$CLI" train --devices "$DATA/devices" --out "$OUT/oracle-table" --tile-table-only \
  "${files[@]}" "${TEST[@]}" >&2

held_out() {
  case "$1" in
    Pascal) echo "Tesla P100-PCIE-16GB,Tesla P4" ;;
    Volta) echo "Tesla V100-PCIE-32GB" ;;
    Turing) echo "Tesla T4" ;;
    Ampere) echo "NVIDIA A100-PCIE-40GB" ;;  # the A100 80GB is always held out
    *) echo "fold_gemm_tiles: unknown fold '$1' (allowed: Pascal, Volta, Turing, Ampere)" >&2; return 2 ;;
  esac
}
gpus_pattern() {
  case "$1" in
    Pascal) echo 'Tesla P100-PCIE-16GB|Tesla P4 ' ;;
    Volta) echo 'Tesla V100' ;;
    Turing) echo 'Tesla T4' ;;
    Ampere) echo 'NVIDIA A100' ;;
  esac
}

IFS=, read -r -a fold_list <<<"$FOLDS"
for fold in "${fold_list[@]}"; do
  hold="$(held_out "$fold")"
  dir="$OUT/$fold"
  mkdir -p "$dir/fold" "$dir/oracle"
  echo "fold $fold: training without $hold" >&2
  "$CLI" train --devices "$DATA/devices" --out "$dir/fold" --hold-out "$hold" "${files[@]}" \
    >"$dir/train.log" 2>&1
  cp "$dir/fold/kernel_weights.json" "$dir/oracle/"
  cp "$OUT/oracle-table/tile_table.json" "$dir/oracle/"
  for table in fold oracle; do
    "$CLI" eval-kernels --devices "$DATA/devices" --weights "$dir/$table" "${TEST[@]}" \
      >"$dir/$table.txt"
  done
  "$CLI" eval-kernels --devices "$DATA/devices" --weights "$dir/fold" --rows "${TEST[@]}" \
    >"$dir/fold-rows.csv"
done

echo "| fold | GPU | op | n | fold's tiles (the protocol) | the GPU's own tiles (oracle) |"
echo "| --- | --- | --- | --- | --- | --- |"
for fold in "${fold_list[@]}"; do
  dir="$OUT/$fold"
  pattern="$(gpus_pattern "$fold")"
  paste -d'\t' <(grep -E "^($pattern)" "$dir/fold.txt") <(grep -E "^($pattern)" "$dir/oracle.txt") |
    awk -F'\t' -v fold="$fold" '{
      n = split($1, a, /  +/); split($2, b, /  +/)
      printf "| %s | %s | %s | %s | %s | %s |\n", fold, a[1], a[2], a[3], a[4], b[4]
    }'
done

# Where the fold's tile is the one cuBLAS ran (the MxN in the kernel's name) and where not.
echo
echo "| fold | GPU | op | rows given cuBLAS's tile: n, MAPE %, signed % | rows given another tile: n, MAPE %, signed % |"
echo "| --- | --- | --- | --- | --- |"
python3 - "$OUT" "${fold_list[@]}" <<'EOF'
import csv, math, re, sys
from collections import defaultdict
out, folds = sys.argv[1], sys.argv[2:]
padding = defaultdict(list)
held_out = {"Pascal": ("Tesla P100-PCIE-16GB", "Tesla P4"), "Volta": ("Tesla V100-PCIE-32GB",),
            "Turing": ("Tesla T4",), "Ampere": ("NVIDIA A100-PCIE-40GB", "NVIDIA A100 80GB PCIe")}
names = {}
for fold in folds:
    groups = defaultdict(list)
    with open(f"{out}/{fold}/fold-rows.csv", newline="") as f:
        for row in csv.DictReader(f):
            if row["gpu"] not in held_out[fold]:
                continue
            path, line = row["origin"].rsplit(":", 1)
            if path not in names:
                with open(path, newline="") as g:
                    names[path] = [r["Kernel Name"] for r in csv.DictReader(g)]
            ran = re.search(r"sgemm_(\d+)x(\d+)", names[path][int(line) - 2])
            same = ran is not None and row["tile"].split()[0] == "x".join(ran.groups())
            err = float(row["predicted_ms"]) / float(row["measured_ms"]) - 1
            groups[(row["gpu"], row["op"], same)].append(err)
            # A square tile's padding of the output (rows M x columns K, dims B,M,N,K):
            # the work it does over the work the output needs.
            if ran is not None and ran.group(1) == ran.group(2):
                t = int(ran.group(1))
                _, m, _, k = (int(v) for v in row["dims"].split(","))
                pad = math.ceil(m / t) * t * math.ceil(k / t) * t / (m * k)
                padding[(fold, row["gpu"], row["op"], f"{t}x{t}", pad >= 1.9)].append(err)
    for gpu, op in sorted({(g, o) for g, o, _ in groups}):
        cells = []
        for same in (True, False):
            e = groups.get((gpu, op, same), [])
            cells.append(f"{len(e)}, {100 * sum(map(abs, e)) / len(e):.1f}, {100 * sum(e) / len(e):+.1f}"
                         if e else "0")
        print(f"| {fold} | {gpu} | {op} | {cells[0]} | {cells[1]} |")

# Rows cuBLAS ran with a square tile, split by how much the tile pads the output.
print()
print("| fold | GPU | op | tile cuBLAS ran | output padded 1.9x or more: n, MAPE %, signed % | less: n, MAPE %, signed % |")
print("| --- | --- | --- | --- | --- | --- |")
for fold, gpu, op, tile in sorted({key[:4] for key in padding}):
    cells = []
    for padded in (True, False):
        e = padding.get((fold, gpu, op, tile, padded), [])
        cells.append(f"{len(e)}, {100 * sum(map(abs, e)) / len(e):.1f}, {100 * sum(e) / len(e):+.1f}"
                     if e else "0")
    print(f"| {fold} | {gpu} | {op} | {tile} | {cells[0]} | {cells[1]} |")
EOF
