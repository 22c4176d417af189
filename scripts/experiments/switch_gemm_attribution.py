#!/usr/bin/env python3
"""How much of the H200 Switch Transformer residual the GEMM forecasts hold (docs/model-forecast.md,
"Switch Transformer under transformers 5").

Forecasts the six H200 Switch labels (data/measured/h200/fp32-seed2-switch, as transformers 5.17
runs them), then again with every linear / bmm op's charged time scaled by the mean measured /
forecast ratio of the run's own kernel rows of its size class (log2 of its FLOPs; `tilecast
eval-kernels --rows` on the run's random shapes). An attribution of the residual, not a forecast:
the size class ignores the shape, and the charged times are the replay's.
Usage: python3 scripts/experiments/switch_gemm_attribution.py [CLI (default build/cli/tilecast)]
"""
import collections
import csv
import glob
import io
import json
import math
import os
import subprocess
import sys
import tempfile

CLI = sys.argv[1] if len(sys.argv) > 1 else "build/cli/tilecast"
RUN = "data/measured/h200/fp32-seed2-switch"
DEVICE = RUN + "/devices/NVIDIA_H200.json"


def size_class_ratios():
    """{op: {log2 FLOPs: [measured / forecast, ...]}} over the run's GEMM rows of >= 20 us."""
    out = subprocess.check_output([CLI, "eval-kernels", "--devices", RUN + "/devices", "--rows"] +
                                  sorted(glob.glob(RUN + "/kernels/*.csv")), text=True)
    ratios = {"linear": collections.defaultdict(list), "bmm": collections.defaultdict(list)}
    for r in csv.DictReader(io.StringIO(out)):
        if r["op"] not in ratios or float(r["measured_ms"]) < 0.02:
            continue
        b, m, n, k = map(int, r["dims"].split(","))
        ratios[r["op"]][int(math.log2(2 * b * m * n * k))].append(
            float(r["measured_ms"]) / float(r["predicted_ms"]))
    return ratios


def scale(ratios, op, flops):
    classes = ratios[op]
    nearest = min(classes, key=lambda c: abs(c - int(math.log2(max(flops, 1)))))
    return sum(classes[nearest]) / len(classes[nearest])


def main():
    ratios = size_class_ratios()
    machine = json.load(open(RUN + "/machine.json"))
    model = json.load(open(RUN + "/models/switch_xl_4.json"))
    model["tilecast_transformers_version"] = machine["transformers"]
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(model, f)
        model_path = f.name
    try:
        for label in sorted(glob.glob(RUN + "/labels/NVIDIA_H200/*.json")):
            _, mode, seq, batch = os.path.basename(label)[:-5].rsplit("-", 3)
            mode = "inference" if mode == "inf" else "training"
            measured = json.load(open(label))["e2e_latency"]
            j = json.loads(subprocess.check_output(
                [CLI, "forecast", "--gpu", DEVICE, "--model", model_path, "--batch", batch,
                 "--seq", seq, "--mode", mode, "--json"]))
            extra = 0.0
            for o in j["operators"]:
                if o["kind"] in ("gemm", "attention_bmm") and o["flops"] > 0:
                    op = "linear" if o["kind"] == "gemm" else "bmm"
                    extra += o["time_ms"] * (scale(ratios, op, o["flops"] / o["launches"]) - 1)
            f = j["latency_ms"]
            print(f"{mode:9s} seq {seq:>4s} batch {batch}: measured {measured:6.1f} ms, forecast "
                  f"{f:6.1f} ({100 * (f / measured - 1):+5.1f} %), with the GEMMs at their size "
                  f"class's error {f + extra:6.1f} ({100 * ((f + extra) / measured - 1):+5.1f} %)")
    finally:
        os.unlink(model_path)


if __name__ == "__main__":
    main()
