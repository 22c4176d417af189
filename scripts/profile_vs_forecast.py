#!/usr/bin/env python3
"""Where a measured whole-model step and tilecast's forecast of it part ways.

    python3 scripts/profile_vs_forecast.py OUT [--tilecast build/cli/tilecast] [--label STEM] [--json]

OUT is a measurement kit folder written with --profile-labels (scripts/measure/measure.py):
for every profiled label, the step's device time per kernel class (kernel names sorted into
tilecast's breakdown classes) beside the forecast's, and per phase the measured time, the
GPU's busy time and its idle time inside the step (span - busy: host-bound stretches such as
Python dispatch and device-to-host synchronisations, which no per-kernel forecast holds).
The forecast runs `tilecast forecast --json` with the kit's device file and model config, as
`tilecast eval-e2e` does, for the transformers release the run recorded (machine.json). docs/measure.md, "Where the time goes"."""

import argparse
import csv
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Kernel-name classes in tilecast's breakdown, first match wins (lower-case substrings).
# Matrix products are one class: kernel names do not tell a linear from an attention bmm.
CLASSES = (
    ("matmul", ("gemm", "xmma", "cutlass", "cublas", "cijk_", "sgemm", "magma", "wmma")),
    ("softmax", ("softmax",)),
    ("norm", ("layer_norm", "layernorm", "rms_norm", "rmsnorm", "reduce_kernel")),
    ("memory", ("copy", "index", "gather", "scatter", "cat", "embedding", "nonzero", "fill",
                "where", "masked", "cumsum", "scan", "sort", "unique", "arange")),
)
FORECAST_CLASS = {"gemm": "matmul", "attention_bmm": "matmul", "softmax": "softmax",
                  "norm": "norm", "elementwise": "elementwise", "memory": "memory"}
ORDER = ("matmul", "softmax", "norm", "elementwise", "memory")
LABEL_RE = re.compile(r"^(?P<model>.+)-(?P<mode>inf|train)-(?P<seq>\d+)-(?P<batch>\d+)(?:-.+)?$")


def kernel_class(name):
    n = name.lower()
    for cls, hints in CLASSES:
        if any(h in n for h in hints):
            return cls
    return "elementwise"


def read_profile(csv_path):
    """{phase: {class: device_ms}} from a profiles/<label>.csv."""
    out = {}
    with open(csv_path, newline="") as f:
        for row in csv.DictReader(f):
            try:
                ms = float(row["device_ms"])
            except (KeyError, TypeError, ValueError):
                raise SystemExit(f"{csv_path}: a row without a numeric device_ms: {row}")
            cls = kernel_class(row.get("kernel", ""))
            phase = out.setdefault(row.get("phase", "?"), {})
            phase[cls] = phase.get(cls, 0.0) + ms
    return out


def parse_label(stem):
    m = LABEL_RE.match(stem)
    if not m:
        raise SystemExit(f"label '{stem}': expected <model>-<inf|train>-<seq>-<batch>[-option]")
    return (m["model"], "inference" if m["mode"] == "inf" else "training", int(m["seq"]),
            int(m["batch"]))


def transformers_release(out_dir):
    """The transformers release the run recorded in machine.json, or None."""
    try:
        with open(os.path.join(out_dir, "machine.json")) as f:
            v = json.load(f).get("transformers")
        return v if isinstance(v, str) and v else None
    except (OSError, ValueError):
        return None


def forecast(tilecast, device_file, model_file, mode, seq, batch, release=None):
    """tilecast's forecast of the case; with `release`, for the module code of that
    transformers release (the config's tilecast_transformers_version, as eval-e2e sets it)."""
    with open(model_file) as f:
        config = json.load(f)
    if release and "tilecast_transformers_version" not in config:
        config["tilecast_transformers_version"] = release
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as tmp:
        json.dump(config, tmp)
    cmd = [tilecast, "forecast", "--gpu", device_file, "--model",
           tmp.name, "--mode", mode, "--seq", str(seq), "--batch", str(batch), "--json"]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True)
    finally:
        os.unlink(tmp.name)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)}: {r.stderr.strip()}")
    return json.loads(r.stdout)


def compare(out_dir, tilecast, only=None):
    devices = sorted(glob.glob(os.path.join(out_dir, "devices", "*.json")))
    if len(devices) != 1:
        raise SystemExit(f"{out_dir}/devices: expected one device file, found {len(devices)}")
    profiles = sorted(glob.glob(os.path.join(out_dir, "profiles", "*.json")))
    if not profiles:
        raise SystemExit(f"{out_dir}/profiles: no profiles (measure with --profile-labels)")
    release = transformers_release(out_dir)
    rows = []
    for p in profiles:
        stem = os.path.basename(p)[:-len(".json")]
        if only and stem != only:
            continue
        model, mode, seq, batch = parse_label(stem)
        model_file = os.path.join(out_dir, "models", model + ".json")
        if not os.path.exists(model_file):
            raise SystemExit(f"{model_file}: the config of label {stem} is missing")
        with open(p) as f:
            totals = json.load(f)
        measured = read_profile(p[:-len(".json")] + ".csv")
        fc = forecast(tilecast, devices[0], model_file, mode, seq, batch, release)
        by_class = {c: 0.0 for c in ORDER}
        for k, v in fc["breakdown"].items():
            by_class[FORECAST_CLASS.get(k, "elementwise")] += v
        step = {c: sum(measured.get(ph, {}).get(c, 0.0) for ph in measured) for c in ORDER}
        phases = {}
        for ph, key in (("forward", "forward_ms"), ("backward", "backward_ms")):
            t = totals.get(ph)
            if not t:
                continue
            phases[ph] = {"measured_ms": (totals.get("measured_ms") or {}).get(ph),
                          "forecast_ms": fc.get(key), "busy_ms": t.get("busy_ms"),
                          "idle_ms": t["span_ms"] - t["busy_ms"], "kernels": t.get("kernels")}
        rows.append({"label": stem, "classes": {c: {"measured_device_ms": step[c],
                                                    "forecast_ms": by_class[c]} for c in ORDER},
                     "phases": phases, "forecast_kernels": fc.get("kernels")})
    if only and not rows:
        raise SystemExit(f"no profile for label '{only}' in {out_dir}/profiles")
    return rows


def print_rows(rows):
    for r in rows:
        print(f"{r['label']}  (forecast: {r['forecast_kernels']} launches)")
        print(f"  {'class':<12} {'profiled ms':>12} {'forecast ms':>12} {'diff %':>8}")
        for c in ORDER:
            m, f = r["classes"][c]["measured_device_ms"], r["classes"][c]["forecast_ms"]
            d = f"{100 * (f - m) / m:+8.1f}" if m > 0 else "       -"
            print(f"  {c:<12} {m:12.2f} {f:12.2f} {d}")
        for ph, v in r["phases"].items():
            meas = v["measured_ms"]
            print(f"  {ph:<9} measured {meas if meas is not None else float('nan'):9.2f} ms, "
                  f"forecast {v['forecast_ms']:9.2f}; profiled step: GPU busy "
                  f"{v['busy_ms']:9.2f}, idle inside the step {v['idle_ms']:8.2f} "
                  f"({v['kernels']} kernels)")
        print()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", help="a measurement kit folder written with --profile-labels")
    ap.add_argument("--tilecast", default=os.path.join(REPO, "build", "cli", "tilecast"),
                    help="the tilecast CLI (default build/cli/tilecast)")
    ap.add_argument("--label", help="one label stem only")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    rows = compare(a.out, a.tilecast, a.label)
    if a.json:
        json.dump(rows, sys.stdout, indent=2)
        print()
    else:
        print_rows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
