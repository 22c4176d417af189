#!/usr/bin/env python3
"""How much of its FP32 peak each measured GPU reaches on large GEMMs: per GPU, op (linear,
bmm) and file set (the NeuSight training and test CSVs, the H200 kit's runs), the median and
90th percentile of achieved FLOP/s over the device file's SingleFLOPs, for kernels measured at
1 ms or longer (where launch cost is negligible).

It is the number a forecaster must get right for an unseen GPU's large GEMMs, and the
architectures disagree on it more than any datasheet quantity explains
(docs/generalization.md, "Targets").

Usage: python3 scripts/experiments/gemm_efficiency.py [--data DIR] [--min-ms 1]
"""
import argparse
import csv
import glob
import json
import os
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def peaks_gflops(device_dirs):
    out = {}
    for d in device_dirs:
        for path in glob.glob(os.path.join(d, "*.json")):
            with open(path) as f:
                spec = json.load(f)
            if "Device" in spec and "SingleFLOPs" in spec:
                out[spec["Device"]] = float(spec["SingleFLOPs"])
    return out


def efficiencies(paths, peaks, min_ms):
    by_gpu = {}
    for path in paths:
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                ms = float(row["Latency"])
                gpu = row.get("Device") or os.path.basename(path)[:-4]
                if ms < min_ms or gpu not in peaks:
                    continue
                b, m, n, k = (int(row[c]) for c in "BMNK")
                by_gpu.setdefault(gpu, []).append(2.0 * b * m * n * k / (ms * 1e6) / peaks[gpu])
    return by_gpu


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=os.environ.get(
        "TILECAST_DATA_DIR", os.path.join(REPO, "..", "shared", "data", "neusight")))
    ap.add_argument("--min-ms", type=float, default=1.0)
    a = ap.parse_args()
    kernels = os.path.join(a.data, "nvidia", "kernels")
    if not os.path.isdir(kernels):
        raise SystemExit(f"gemm_efficiency: no kernels folder at {kernels} (--data DIR)")
    h200 = os.path.join(REPO, "data", "measured", "h200")
    peaks = peaks_gflops([os.path.join(a.data, "devices")] +
                         glob.glob(os.path.join(h200, "fp32-*", "devices")))
    sets = []
    for op in ("linear", "bmm"):
        sets.append(("NeuSight train", op, glob.glob(os.path.join(kernels, "train", op, "*.csv"))))
        sets.append(("NeuSight test", op, [os.path.join(kernels, "test", op + ".csv")]))
        sets.append(("H200 kit", op, glob.glob(os.path.join(h200, "fp32-*", "kernels", op + ".csv"))))
    print(f"| GPU | op | rows | n (>= {a.min_ms:g} ms) | median share of FP32 peak | 90th pct |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, op, paths in sets:
        for gpu, eff in sorted(efficiencies(paths, peaks, a.min_ms).items()):
            eff.sort()
            print(f"| {gpu} | {op} | {name} | {len(eff)} | {statistics.median(eff):.2f} | "
                  f"{eff[int(0.9 * (len(eff) - 1))]:.2f} |")


if __name__ == "__main__":
    main()
