#!/usr/bin/env python3
"""What a published offline serving run leaves unexplained per engine step (docs/serving-checks.md;
session 45's note): for every loaded throughput row of data/published/serving.json, the
simulation's mean step (its duration over its steps) and mean batch, the step the published
throughput would need at that batch (the forecast step x forecast / published throughput), and
the difference per step and per sequence of the batch. A fixed host cost per sequence (or per
step) would show as a steady column; it does not. A diagnosis: nothing here is fitted or used.

    python3 scripts/experiments/offline_step_excess.py [path/to/tilecast]   (~20 s)
"""
import json
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "build/cli/tilecast")
DATA = json.load(open(os.path.join(REPO, "data/published/serving.json")))
SOURCES = DATA["sources"]
# a row's (or its source's) setting and the serve flag that passes it (scripts/serving_checks.mjs)
PASSED = [("scheduler", "--scheduler"), ("batch_limits", "--batch-limits"),
          ("decode_attention", "--decode-attention"), ("range_ratio", "--range-ratio")]


def serve_args(row):
    args = ["serve", "--gpu", row["gpu"], "--model", row["model"], "--prompt", str(row["prompt"]),
            "--output", str(row["output"])]
    if "qps" in row:
        args += ["--qps", str(row["qps"])]
    else:
        args += ["--concurrency", str(row["concurrency"])]
    args += ["--requests", str(row["requests"]), "--seed", "0", "--tp", str(row["tp"]),
             "--precision", row["precision"]]
    if "ep" in row:
        args += ["--ep", str(row["ep"])]
    for field, flag in (("kv_cache", "--kv-cache"), ("weights", "--weights")):
        if row.get(field):
            args += [flag, row[field]]
    source = SOURCES.get(row["source"], {})
    for field, flag in PASSED:
        value = row.get(field, source.get(field))
        if value is not None:
            args += [flag, str(value)]
    return args + ["--json"]


def main():
    print("row | GPU | model | precision | tp / ep | prompt / output | mean seqs | step ms | "
          "step needed ms | ratio | excess us per sequence")
    for row in DATA["rows"]:
        metric = row["metric"]
        if not metric.startswith("output_tokens_per_s") or ("qps" not in row and "concurrency" not in row):
            continue
        out = subprocess.run([CLI] + serve_args(row), capture_output=True, text=True)
        if out.returncode != 0:
            continue
        f = json.loads(out.stdout)
        per_gpu = metric == "output_tokens_per_s_per_gpu"
        forecast = f["output_tokens_per_s"] / (row.get("ep", row["tp"]) if per_gpu else 1)
        ratio = forecast / row["value"]
        step = f["duration_ms"] / f["steps"]
        needed = step * ratio
        excess_us = 1000 * (needed - step) / f["mean_batch_seqs"]
        print(f"{row['id']} | {row['gpu']} | {row['model']} | {row['precision']} | "
              f"{row['tp']} / {row.get('ep', 1)} | {row['prompt']} / {row['output']} | "
              f"{f['mean_batch_seqs']:.1f} | {step:.2f} | {needed:.2f} | {ratio:.2f} | {excess_us:.1f}")


if __name__ == "__main__":
    main()
