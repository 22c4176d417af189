#!/usr/bin/env python3
"""Where the Blackwell NVFP4 serving forecasts lean, and what would move them (docs/serving.md,
"Loaded, TP and quantized rows"). Forecasts every published B200 / GB200 row of
data/published/serving.json as scripts/serving_checks.mjs does (loaded rows: the contract command
with the source's scheduler and batch limits), once with each GPU as the catalog has it and once
per variant of its catalog entry, and prints the median ratio (tilecast / published) per variant
and tensor parallelism. Variants are diagnoses, not fits: none is kept.

    python3 scripts/experiments/blackwell_fp4_rate.py [path/to/tilecast]   (~1 min on 2 cores)
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "build/cli/tilecast")
DATA = json.load(open(os.path.join(REPO, "data/published/serving.json")))
GPUS = ("b200", "gb200")


def variants(spec):
    """The catalog entry, and each change tried (name -> GPU JSON)."""
    out = {"catalog": spec}
    v = json.loads(json.dumps(spec))
    v["peak_tflops"]["fp4"]["tensor"] = v["peak_tflops"]["fp8"]["tensor"]
    out["fp4 GEMMs at the fp8 peak"] = v
    v = json.loads(json.dumps(spec))
    v["mem_bw_gbps"] *= 0.7
    out["70 % of the memory bandwidth"] = v
    return out


def command(row, gpu):
    src = DATA["sources"][row["source"]]
    args = [CLI, "serve", "--gpu", gpu, "--model", row["model"], "--prompt", str(row["prompt"]),
            "--output", str(row["output"]), "--tp", str(row["tp"]), "--precision", row["precision"]]
    if row.get("kv_cache"):
        args += ["--kv-cache", row["kv_cache"]]
    if "concurrency" not in row:
        raise SystemExit(f"{row['id']}: only loaded rows are expected here")
    args += ["--concurrency", str(row["concurrency"]), "--requests", str(row["requests"]), "--seed", "0"]
    for field, flag in (("scheduler", "--scheduler"), ("batch_limits", "--batch-limits")):
        if src.get(field):
            args += [flag, src[field]]
    return args + ["--json"]


def ratio(row, gpu):
    out = subprocess.run(command(row, gpu), capture_output=True, text=True, check=True).stdout
    return json.loads(out)[row["metric"]] / row["value"]


def main():
    rows = [r for r in DATA["rows"] if r["gpu"] in GPUS]
    with tempfile.TemporaryDirectory() as tmp:
        specs = {}
        for g in GPUS:
            spec = json.loads(subprocess.run([CLI, "gpus", "--show", g, "--json"], capture_output=True,
                                             text=True, check=True).stdout)
            specs[g] = variants(spec)
        for name in specs[GPUS[0]]:
            paths = {}
            for g in GPUS:
                paths[g] = os.path.join(tmp, f"{g}.json")
                json.dump(specs[g][name], open(paths[g], "w"))
            with ThreadPoolExecutor(2) as pool:
                got = list(pool.map(lambda r: (r, ratio(r, paths[r["gpu"]])), rows))
            all_r = [x for _, x in got]
            by_tp = {tp: [x for r, x in got if r["tp"] == tp] for tp in sorted({r["tp"] for r in rows})}
            print(f"{name}: {len(rows)} rows, median ratio {statistics.median(all_r):.2f}, median absolute "
                  f"error {100 * statistics.median(abs(x - 1) for x in all_r):.1f} %; by TP: " +
                  ", ".join(f"{tp} {statistics.median(v):.2f} ({len(v)})" for tp, v in by_tp.items()))


if __name__ == "__main__":
    main()
