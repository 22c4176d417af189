#!/usr/bin/env python3
"""Where a training step's time goes, phase by phase: for every training label of the NeuSight
data that carries per-operator measurements (labels/<GPU>/<case>.csv), the measured forward and
backward phases (the label's fw_latency, bwall_latency) against the sum of the same run's own
per-operator measurements (layer 0's operators times the layer count, the rest once) and
against tilecast's forecast of each phase (build/cli/tilecast forecast --json).

A phase that takes much longer end to end than its own operators took one by one holds time no
per-kernel forecaster can see (docs/model-forecast.md, "What limits the end-to-end error").

Usage: python3 scripts/experiments/label_phases.py [--data DIR] [--cli PATH] [GPU_FOLDER ...]
"""
import argparse
import csv
import glob
import json
import os
import re
import subprocess
import sys

# An operator of the first repeated block: its module stack names layer 0 of the encoder or
# decoder ("bert.encoder.layer.0", "transformer.h.0", "model.decoder.layers.0", ...).
LAYER0 = re.compile(r"'[A-Za-z_.]*(?:layer|h|layers|block)\.0'")


def op_sums(csv_path, layers):
    fw = bw = 0.0
    with open(csv_path, newline="") as f:
        for row in csv.DictReader(f):
            times = layers if LAYER0.search(row.get("meta", "")) else 1
            fw += times * float(row.get("fw_latency") or 0)
            bw += times * (float(row.get("bw_latency") or 0) + float(row.get("acc_latency") or 0))
    return fw, bw


def forecast(cli, data, gpu_folder, case):
    model, rest = case.split("-train-")
    seq, batch = rest.split("-")
    model_path = os.path.join(data, "models", model + ".json")
    if not (cli and os.path.exists(model_path)):
        return None
    out = subprocess.run(
        [cli, "forecast", "--gpu", os.path.join(data, "devices", gpu_folder + ".json"),
         "--model", model_path, "--batch", batch, "--seq", seq, "--mode", "training", "--json"],
        capture_output=True, text=True)
    if out.returncode != 0:
        return None
    j = json.loads(out.stdout)
    return j["forward_ms"], j["backward_ms"]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=os.environ.get(
        "TILECAST_DATA_DIR", os.path.join(here, "..", "..", "..", "shared", "data", "neusight")))
    ap.add_argument("--cli", default=os.path.join(here, "..", "..", "build", "cli", "tilecast"))
    ap.add_argument("gpus", nargs="*", help="label folders (default: every one with training labels)")
    a = ap.parse_args()
    labels = os.path.join(a.data, "labels")
    if not os.path.isdir(labels):
        sys.exit(f"label_phases: no labels folder at {labels} (--data DIR)")
    cli = a.cli if os.access(a.cli, os.X_OK) else None
    gpus = a.gpus or sorted(os.listdir(labels))
    print("| GPU | case | forward: measured, own operators' sum (x), forecast (%) "
          "| backward: measured, own operators' sum (x), forecast (%) |")
    print("| --- | --- | --- | --- |")
    for gpu in gpus:
        for path in sorted(glob.glob(os.path.join(labels, gpu, "*-train-*.csv"))):
            case = os.path.basename(path)[:-4]
            with open(path[:-4] + ".json") as f:
                label = json.load(f)
            fw, bw = label["fw_latency"], label["bwall_latency"]
            ops_fw, ops_bw = op_sums(path, label.get("num_layer") or 1)
            fc = forecast(cli, a.data, gpu, case)
            def cell(measured, ops, predicted):
                s = f"{measured:.1f} ms, {ops:.1f} ({measured / ops:.2f}x)"
                if predicted is not None:
                    s += f", {predicted:.1f} ({100 * (predicted - measured) / measured:+.1f} %)"
                return s
            print(f"| {gpu} | {case} | {cell(fw, ops_fw, fc and fc[0])} "
                  f"| {cell(bw, ops_bw, fc and fc[1])} |")


if __name__ == "__main__":
    main()
