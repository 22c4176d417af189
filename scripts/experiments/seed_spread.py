#!/usr/bin/env python3
"""The generalization protocol's figures over several training seeds, and their mean.

Each fold of `make eval-generalization` retrains with one seed (1). What an architecture never
seen gets from the nets also depends on the initialisation, so this prints, per fold, the
kernel MAPE per family, the whole-model MAE per GPU and mode, and the bands' coverage of each
run given, beside their mean and range. Produce the runs with, for N in 1 2 3:

    bash scripts/eval_generalization.sh --folds Pascal,Volta,Turing,Ampere --seed N \\
        --out /tmp/gen-seedN.json

(about 4 minutes each on 2 cores; two can run side by side), then:

    python3 scripts/experiments/seed_spread.py /tmp/gen-seed1.json /tmp/gen-seed2.json /tmp/gen-seed3.json
"""
import json
import sys

FAMILIES = ("bmm", "linear", "elementwise", "softmax", "layernorm")


def figures(path):
    """{(fold, what): value} of one protocol report."""
    try:
        with open(path) as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"seed_spread: cannot read {path}: {e}")
    out = {}
    for fold in report.get("folds", []):
        name = fold["name"]
        kernels = fold.get("kernels", [])
        # a fold of several GPUs reports them together as "all"; a one-GPU fold has no "all"
        pooled = any(k["gpu"] == "all" for k in kernels)
        for k in kernels:
            if k["group"] in FAMILIES and (k["gpu"] == "all" or not pooled):
                out[(name, f"kernels {k['group']}")] = k["mape_pct"]
        for e in fold.get("e2e", []):
            out[(name, f"models {e['gpu']} {e['mode']}")] = e["mae_pct"]
        bands = fold.get("bands")
        if bands:
            out[(name, "bands: kernels inside %")] = bands["kernel_inside_pct"]
            out[(name, "bands: models inside %")] = bands["e2e_inside_pct"]
    return out


def main():
    paths = sys.argv[1:]
    if len(paths) < 2 or any(p in ("-h", "--help") for p in paths):
        sys.exit(__doc__)
    runs = [figures(p) for p in paths]
    keys = [k for k in runs[0] if all(k in r for r in runs)]
    if not keys:
        sys.exit("seed_spread: the reports share no fold figures")
    print("| fold | figure | " + " | ".join(f"run {i + 1}" for i in range(len(runs))) +
          " | mean | range |")
    print("| --- | --- | " + " | ".join("---" for _ in runs) + " | --- | --- |")
    for k in keys:
        v = [r[k] for r in runs]
        print(f"| {k[0]} | {k[1]} | " + " | ".join(f"{x:.1f}" for x in v) +
              f" | {sum(v) / len(v):.1f} | {max(v) - min(v):.1f} |")


if __name__ == "__main__":
    main()
