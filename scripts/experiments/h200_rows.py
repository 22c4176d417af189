#!/usr/bin/env python3
"""Where the H200 kernel error sits, by measured duration and op (docs/accuracy.md's H200 paragraph).

Runs `tilecast eval-kernels --rows` on one run of the measurement kit and prints: the signed
error of the rows under 30 us (median, 10th and 90th percentile), under 50 us and over 1 ms
(median), and the MAPE per op of the rows measured at 100 us or longer.

Usage: python3 scripts/experiments/h200_rows.py [RUN_DIR (data/measured/h200/fp32-seed0)] [--tilecast CLI]
"""
import argparse
import csv
import glob
import io
import os
import statistics
import subprocess
import sys


def quantile(values, p):
    v = sorted(values)
    return v[int(p * (len(v) - 1))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run", nargs="?", default="data/measured/h200/fp32-seed0")
    ap.add_argument("--tilecast", default="build/cli/tilecast")
    a = ap.parse_args()
    csvs = sorted(glob.glob(os.path.join(a.run, "kernels", "*.csv")))
    if not csvs:
        sys.exit(f"h200_rows: no kernels/*.csv under {a.run}")
    out = subprocess.run([a.tilecast, "eval-kernels", "--devices", os.path.join(a.run, "devices"),
                          "--rows"] + csvs, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"h200_rows: {a.tilecast} eval-kernels failed: {out.stderr.strip()}")
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    err = [(r["op"], float(r["measured_ms"]),
            (float(r["predicted_ms"]) / float(r["measured_ms"]) - 1) * 100) for r in rows]
    under30 = [e for _, m, e in err if m < 0.03]
    print(f"{len(err)} rows of {a.run}; signed error % (> 0: forecast slower than measured)")
    print(f"  under 30 us: {len(under30)} rows, median {statistics.median(under30):+.0f}, "
          f"10th-90th percentile {quantile(under30, 0.1):+.0f} to {quantile(under30, 0.9):+.0f}")
    for label, pick in (("under 50 us", lambda m: m < 0.05), ("over 1 ms", lambda m: m > 1)):
        v = [e for _, m, e in err if pick(m)]
        print(f"  {label}: {len(v)} rows, median {statistics.median(v):+.0f}")
    print("MAPE % of the rows measured at 100 us or longer, per op:")
    for op in sorted({o for o, _, _ in err}):
        v = [abs(e) for o, m, e in err if o == op and m >= 0.1]
        if v:
            print(f"  {op:8s} {len(v):4d} rows  {sum(v) / len(v):5.1f}")


if __name__ == "__main__":
    main()
