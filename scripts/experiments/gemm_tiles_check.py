#!/usr/bin/env python3
"""The library's GEMM tiles against the forecast's, on measured kernels: for each linear of a
kernel CSV in the dataset's format (default: the H200 kit's fp32-seed0 run) whose dims are all
multiples of 64 (model-shaped), the measured launch's CTA count (Grid x * y * z) beside the
forecast's tiles and waves (`tilecast kernel --json`), and the forecast's signed error, by
duration class. Shows where wave quantisation that the tile table does not foresee costs time
(docs/kernel-model.md, "Known gaps").

Usage: python3 scripts/experiments/gemm_tiles_check.py [--cli PATH] [--devices DIR] [CSV]
"""
import argparse
import collections
import csv
import glob
import json
import os
import statistics
import subprocess

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUN = os.path.join(REPO, "data", "measured", "h200", "fp32-seed0")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", default=os.path.join(REPO, "build", "cli", "tilecast"))
    ap.add_argument("--devices", default=os.path.join(RUN, "devices"))
    ap.add_argument("csv", nargs="?", default=os.path.join(RUN, "kernels", "linear.csv"))
    a = ap.parse_args()
    if not os.access(a.cli, os.X_OK):
        raise SystemExit(f"gemm_tiles_check: no CLI at {a.cli} (build first, or --cli PATH)")
    devices = {}
    for path in glob.glob(os.path.join(a.devices, "*.json")):
        with open(path) as f:
            devices[json.load(f)["Device"]] = path
    classes = collections.defaultdict(list)
    with open(a.csv, newline="") as f:
        for row in csv.DictReader(f):
            dims = [int(row[c]) for c in "BMNK"]
            if row["OPName"] != "linear" or any(d % 64 for d in dims[1:]):
                continue
            if row["Device"] not in devices:
                raise SystemExit(f"gemm_tiles_check: no device file for '{row['Device']}' in {a.devices}")
            ms = float(row["Latency"])
            if ms < 0.1:
                continue
            out = subprocess.run(
                [a.cli, "kernel", "--gpu", devices[row["Device"]], "--op", "linear", "--dims",
                 ",".join(map(str, dims)), "--json"], capture_output=True, text=True, check=True)
            fc = json.loads(out.stdout)
            ctas = int(row["Grid x"]) * int(row["Grid y"]) * int(row["Grid z"])
            key = (row["Device"], "0.1-1 ms" if ms < 1 else ">= 1 ms")
            classes[key].append((100 * (fc["latency_ms"] - ms) / ms, ctas, fc["tiles"], fc["waves"]))
    print("| GPU | measured | n | signed error % | measured CTAs (median) | forecast tiles (median) "
          "| forecast waves (median) |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for (gpu, cls), v in sorted(classes.items()):
        print(f"| {gpu} | {cls} | {len(v)} | {statistics.mean(x[0] for x in v):+.1f} | "
              f"{statistics.median(x[1] for x in v):.0f} | {statistics.median(x[2] for x in v):.0f} | "
              f"{statistics.median(x[3] for x in v):.0f} |")


if __name__ == "__main__":
    main()
