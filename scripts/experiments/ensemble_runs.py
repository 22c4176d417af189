#!/usr/bin/env python3
"""A seed ensemble of generalization runs, for the protocol's report (docs/generalization.md).

Reads the per-row residual files that `scripts/eval_generalization.sh ... --seed N --runs-out
FILE` writes for several seeds of the same inputs, and writes one in the same format whose
every forecast (kernel rows, whole models and their phases) is the geometric mean of the
seeds'. The rows must agree (same inputs); the output keeps the first run's hash, so
re-aggregate it, bands included, with the same folds, the first run's seed and `--runs-in`:

    python3 scripts/experiments/ensemble_runs.py /tmp/runs-seed1.json /tmp/runs-seed2.json \\
        /tmp/runs-seed3.json /tmp/runs-ensemble.json
    bash scripts/eval_generalization.sh --folds Pascal,Volta,Turing,Ampere \\
        --runs-in /tmp/runs-ensemble.json --out /tmp/gen-ensemble.json
"""
import json
import math
import sys

KERNEL_PREDICTED = 3  # [gpu, op, measured_ms, predicted_ms, roofline_ms]
E2E_KEY = 6  # [gpu, model, mode, seq, batch, measured_ms, ...]
E2E_PREDICTED = (6, 10, 11)  # predicted_ms, predicted_forward_ms, predicted_backward_ms


def geometric_mean(values, where):
    if any(v is None for v in values):
        if all(v is None for v in values):
            return None
        sys.exit(f"ensemble_runs: {where}: a forecast is missing in some runs only")
    if any(not v > 0 for v in values):
        return values[0]  # a phase the label does not split (0 in every run)
    return math.exp(sum(math.log(v) for v in values) / len(values))


def main():
    if len(sys.argv) < 4 or any(a in ("-h", "--help") for a in sys.argv[1:]):
        sys.exit(__doc__)
    *inputs, out = sys.argv[1:]
    runs = []
    for path in inputs:
        try:
            with open(path) as f:
                runs.append(json.load(f))
        except (OSError, ValueError) as e:
            sys.exit(f"ensemble_runs: cannot read {path}: {e}")
    first = runs[0]
    for f, fold in enumerate(first["runs"]):
        folds = [r["runs"][f] for r in runs]
        if any(x["name"] != fold["name"] or len(x["kernels"]) != len(fold["kernels"]) or
               len(x["e2e"]) != len(fold["e2e"]) for x in folds):
            sys.exit(f"ensemble_runs: fold {fold['name']} differs between the runs")
        for i, row in enumerate(fold["kernels"]):
            rows = [x["kernels"][i] for x in folds]
            if any(r[:KERNEL_PREDICTED] != row[:KERNEL_PREDICTED] for r in rows):
                sys.exit(f"ensemble_runs: fold {fold['name']}, kernel row {i} differs")
            row[KERNEL_PREDICTED] = geometric_mean([r[KERNEL_PREDICTED] for r in rows],
                                                   f"{fold['name']} kernel row {i}")
        for i, case in enumerate(fold["e2e"]):
            cases = [x["e2e"][i] for x in folds]
            if any(c[:E2E_KEY] != case[:E2E_KEY] for c in cases):
                sys.exit(f"ensemble_runs: fold {fold['name']}, case {i} differs")
            for k in E2E_PREDICTED:
                case[k] = geometric_mean([c[k] for c in cases], f"{fold['name']} case {i}")
    with open(out, "w") as f:
        json.dump(first, f)
    print(f"ensemble_runs: {len(runs)} runs -> {out}")


if __name__ == "__main__":
    main()
