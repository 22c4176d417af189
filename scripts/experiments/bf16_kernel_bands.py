#!/usr/bin/env python3
"""Would the FP32 kernel bands hold half-precision kernels? Applies core/data/error_bands.json's
kernel bands (by op family and size class of the forecast) to the H200's BF16 kit rows, as
`tilecast eval-kernels --rows` forecasts them, and prints the share inside and the mean width.
The answer (under half inside: docs/generalization.md, "Other precisions") is why a half-precision
kernel forecast carries no band while a whole model carries the FP32 band. Then the per-call cost
behind it: the median time of the small calls (under 20,000 elements) of add, GELU, ReLU and
softmax on the H200's host (its FP32 and BF16 kits) and on each NeuSight training GPU's host.

    python3 scripts/experiments/bf16_kernel_bands.py [BUILD_DIR]   (default build)
"""
import csv
import io
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
cli = REPO / (sys.argv[1] if len(sys.argv) > 1 else "build") / "cli" / "tilecast"
bands = json.loads((REPO / "core/data/error_bands.json").read_text())
edges = bands["kernel_class_edges_ms"]
FAMILY = {"linear": "gemm", "bmm": "gemm", "softmax": "softmax", "ln": "layernorm"}


def size_class(ms):
    return next((i for i, e in enumerate(edges) if ms < e), len(edges))


for run in ("bf16-seed0", "bf16-seed0-labels"):
    d = REPO / "data/measured/h200" / run
    files = sorted(str(f) for f in (d / "kernels-bf16").glob("*.csv"))
    out = subprocess.run([str(cli), "eval-kernels", "--devices", str(d / "devices"), "--rows", *files],
                         check=True, capture_output=True, text=True).stdout
    n = inside = 0
    width = 0.0
    by_op = {}
    for r in csv.DictReader(io.StringIO(out)):
        measured, forecast = float(r["measured_ms"]), float(r["predicted_ms"])
        band = bands["kernel"][FAMILY.get(r["op"], "elementwise")][size_class(forecast)]
        hit = forecast * band["low"] <= measured <= forecast * band["high"]
        n += 1
        inside += hit
        width += band["high"] - band["low"]
        op = by_op.setdefault(r["op"], [0, 0])
        op[0] += 1
        op[1] += hit
    print(f"{run}: {n} kernels, {100 * inside / n:.1f} % inside the FP32 kernel bands, "
          f"mean width {100 * width / n:.1f} %")
    print("  " + ", ".join(f"{op} {100 * k / m:.0f} %" for op, (m, k) in sorted(by_op.items())))

SMALL_OPS = ("add", "gelu", "relu", "softmax")


def small_call_medians(files):
    out = {}
    for op, f in files:
        with open(f) as fh:
            rows = [r for r in csv.DictReader(fh) if float(r["B"]) * float(r["H"]) < 20000]
        for device in sorted({r["Device"] for r in rows}):
            ms = sorted(float(r["Latency"]) for r in rows if r["Device"] == device)
            out.setdefault(device, {})[op] = 1000 * ms[len(ms) // 2]
    return out


h200 = REPO / "data/measured/h200"
for run, sub in (("fp32-seed0", "kernels"), ("bf16-seed0", "kernels-bf16")):
    for device, by_op in small_call_medians((op, h200 / run / sub / f"{op}.csv") for op in SMALL_OPS).items():
        print(f"{run} {device}: small calls' median " + ", ".join(f"{op} {us:.1f} us" for op, us in by_op.items()))
neusight = REPO / ".." / "shared" / "data" / "neusight" / "nvidia" / "kernels" / "train"
if neusight.is_dir():
    files = [(op, f) for op in SMALL_OPS for f in sorted((neusight / op).glob("*.csv"))]
    for device, by_op in small_call_medians(files).items():
        print(f"NeuSight {device}: small calls' median " + ", ".join(f"{op} {us:.1f} us" for op, us in by_op.items()))

