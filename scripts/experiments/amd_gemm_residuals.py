#!/usr/bin/env python3
"""Where the AMD GEMM forecasts across GPUs are off (docs/amd-model.md).

Reads the rows that `TILECAST_ROWS_DIR=DIR scripts/eval_amd_cross_gpu.sh` writes
(DIR/MI100-on-MI210.csv, DIR/MI210-on-MI100.csv), joins each row to its measured rocBLAS/Tensile
kernel (macro tile, split-U GSU, matrix instruction) and prints MAPE and mean signed error per
group: measured time, split-K, matrix instruction, forecast tile = measured tile, reduction
length, batch. Then the same shapes measured on both GPUs, the other GPU's time scaled by the
matrix-peak ratio: how far apart the two GPUs are, by whether their library chose the same tile.
Usage: scripts/experiments/amd_gemm_residuals.py ROWS_DIR [DATA_DIR (default ../shared/data/neusight)]
"""
import csv
import math
import re
import sys
from collections import defaultdict

ROWS = sys.argv[1]
DATA = sys.argv[2] if len(sys.argv) > 2 else "../shared/data/neusight"
GPUS = ("MI100", "MI210")


def peak_gflops(gpu):
    text = open(f"{DATA}/devices/AMD_Instinct_{gpu}.json").read()
    return float(re.search(r'"SingleFLOPsMM"\s*:\s*([0-9.]+)', text).group(1))


def measured(gpu):
    out = {}
    for op in ("linear", "bmm"):
        path = f"{DATA}/amd/kernels/test/{op}/AMD Instinct {gpu}.csv"
        for r in csv.DictReader(open(path)):
            name = r["Kernel Name"]
            mt = re.search(r"_MT(\d+)x(\d+)x(\d+)_", name)
            gsu = re.search(r"_GSU(\d+)_", name)
            mi = re.search(r"_MI(\d+x\d+x\d+x\d+)_", name)
            dims = tuple(int(r[d]) for d in "BMNK")
            out[(op, dims, round(float(r["Latency"]), 6))] = dict(
                tile=f"{mt.group(1)}x{mt.group(2)}" if mt else "?",
                gsu=int(gsu.group(1)) if gsu else 1,
                mi=mi.group(1) if mi else "none (vector ALU)",
                ms=float(r["Latency"]), dims=dims)
    return out


def group(title, rows, key):
    groups = defaultdict(list)
    for r in rows:
        groups[key(r)].append(r["err"])
    print(f"    by {title}:")
    for k in sorted(groups, key=lambda k: (type(k).__name__, k)):
        v = groups[k]
        print(f"      {str(k):>22}  n={len(v):5d}  MAPE {100 * sum(map(abs, v)) / len(v):5.1f} %"
              f"  mean error {100 * sum(v) / len(v):+6.1f} %")


def lg(x):
    return int(round(math.log2(x)))


for train, test in (GPUS, GPUS[::-1]):
    meas = measured(test)
    rows = []
    for r in csv.DictReader(open(f"{ROWS}/{train}-on-{test}.csv")):
        dims = tuple(int(x) for x in r["dims"].split(","))
        m = meas[(r["op"], dims, round(float(r["measured_ms"]), 6))]
        pred, ms = float(r["predicted_ms"]), float(r["measured_ms"])
        rows.append(dict(m, op=r["op"], err=(pred - ms) / ms, forecast_tile=r["tile"]))
    print(f"train {train} -> test {test}")
    for op in ("linear", "bmm"):
        sel = [r for r in rows if r["op"] == op]
        print(f"  {op}: {len(sel)} rows, MAPE {100 * sum(abs(r['err']) for r in sel) / len(sel):.1f} %")
        group("log2 measured ms", sel, lambda r: max(-3, min(8, lg(r["ms"]))))
        group("measured split-U (GSU)", sel, lambda r: r["gsu"])
        group("measured matrix instruction", sel, lambda r: r["mi"])
        group("forecast tile = measured tile", sel,
              lambda r: r["forecast_tile"].split()[0] == r["tile"])
        group("log2 reduction length N", sel, lambda r: lg(r["dims"][2]))
        if op == "bmm":
            group("log2 batch B", sel, lambda r: lg(r["dims"][0]))

print("same shape on both GPUs, the other's time x matrix-peak ratio (MI100 -> MI210 / back):")
a, b = measured("MI100"), measured("MI210")
ka = {(k[0], k[1]): v for k, v in a.items()}
kb = {(k[0], k[1]): v for k, v in b.items()}
ratio = peak_gflops("MI100") / peak_gflops("MI210")
for op in ("linear", "bmm"):
    for same in (True, False):
        keys = [k for k in ka if k in kb and k[0] == op and
                ((ka[k]["tile"], ka[k]["gsu"], ka[k]["mi"]) ==
                 (kb[k]["tile"], kb[k]["gsu"], kb[k]["mi"])) == same]
        if not keys:
            continue
        fwd = sum(abs(ka[k]["ms"] * ratio - kb[k]["ms"]) / kb[k]["ms"] for k in keys) / len(keys)
        back = sum(abs(kb[k]["ms"] / ratio - ka[k]["ms"]) / ka[k]["ms"] for k in keys) / len(keys)
        print(f"  {op:6} {'same' if same else 'different'} kernel tile: {len(keys):5d} shapes, "
              f"MAPE {100 * fwd:.1f} / {100 * back:.1f} %")
