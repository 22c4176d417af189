#!/usr/bin/env python3
"""What a published offline serving run leaves unexplained per engine step (docs/serving-checks.md;
session 45's note): for every loaded throughput row of data/published/serving.json, the
simulation's mean step (its duration over its steps) and mean batch, the step the published
throughput would need at that batch (the forecast step x forecast / published throughput), and
the difference per step and per sequence of the batch. A fixed host cost per sequence (or per
step) would show as a steady column; it does not. A diagnosis: nothing here is fitted or used.

    python3 scripts/experiments/offline_step_excess.py [path/to/tilecast]   (~30 s; node for the checks)
"""
import json
import os
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "build/cli/tilecast"))


def checked_rows():
    """Every row of the serving checks with the serve arguments scripts/serving_checks.mjs ran."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "serving.json")
        subprocess.run(["node", os.path.join(REPO, "scripts/serving_checks.mjs"), "--json", out],
                       check=True, env={**os.environ, "TILECAST_CLI": CLI})
        return json.load(open(out))["rows"]


def main():
    print("row | GPU | model | precision | tp / ep | prompt / output | mean seqs | step ms | "
          "step needed ms | ratio | excess us per sequence")
    for row in checked_rows():
        metric = row["metric"]
        if not metric.startswith("output_tokens_per_s") or not row["loaded"]:
            continue
        out = subprocess.run([CLI] + row["args"], capture_output=True, text=True)
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
