#!/usr/bin/env bash
# Validation only (never trained on): the FP16/BF16 GEMM forecasts against this repo's BF16
# kernel timings of the H200 (data/measured/h200/bf16-seed0/kernels-bf16/{linear,bmm}.csv,
# PyTorch-profiler timings of random shapes; docs/fp16-model.md "BF16 on the H200"). Prints
# MAPE per op, by tokens-free shape size, beside the roofline, and the signed median error.
# Usage: scripts/experiments/eval_h200_bf16_gemm.sh [BUILD_DIR]  (~1 min: one `tilecast kernel` per row)
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD="${1:-build}"
python3 - "$BUILD/cli/tilecast" <<'PY'
import csv, json, statistics, subprocess, sys
cli = sys.argv[1]
root = "data/measured/h200/bf16-seed0/kernels-bf16"
print("| op | rows | MAPE % | roofline MAPE % | median signed error % | rows > 0.1 ms: MAPE % |")
print("|---|---|---|---|---|---|")
for op in ("linear", "bmm"):
    errs, roof, signed, big = [], [], [], []
    for r in csv.DictReader(open(f"{root}/{op}.csv")):
        dims = ",".join(r[c] for c in ("B", "M", "N", "K"))
        y = float(r["Latency"])
        out = subprocess.run([cli, "kernel", "--gpu", "h200", "--op", op, "--dims", dims,
                              "--precision", "bf16", "--json"], capture_output=True, text=True,
                             check=True).stdout
        f = json.loads(out)
        e = (f["latency_ms"] - y) / y
        errs.append(abs(e)); signed.append(e)
        roof.append(abs(f["roofline_ms"] - y) / y)
        if y > 0.1:
            big.append(abs(e))
    n = len(errs)
    print(f"| {op} | {n} | {100 * sum(errs) / n:.1f} | {100 * sum(roof) / n:.1f} "
          f"| {100 * statistics.median(signed):+.1f} "
          f"| {100 * sum(big) / max(len(big), 1):.1f} ({len(big)} rows) |")
PY
