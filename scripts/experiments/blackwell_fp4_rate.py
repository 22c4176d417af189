#!/usr/bin/env python3
"""Where the Blackwell NVFP4 serving forecasts lean, and what would move them (docs/serving.md,
"Loaded, TP and quantized rows"). Forecasts every published B200 / GB200 row of
data/published/serving.json with scripts/serving_checks.mjs (TILECAST_SERVING_DATA: the rows, each
GPU named by a file), once with each GPU as the catalog has it and once
per variant of its catalog entry, and prints the median ratio (tilecast / published) per variant
and tensor parallelism. Variants are diagnoses, not fits: none is kept.

    python3 scripts/experiments/blackwell_fp4_rate.py [path/to/tilecast]   (~5 s on 2 cores)
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

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


def ratios(rows, paths, tmp):
    """scripts/serving_checks.mjs over these rows, each GPU given as its variant's file."""
    data = dict(DATA, rows=[dict(r, gpu=paths[r["gpu"]]) for r in rows])
    data_path, out = os.path.join(tmp, "rows.json"), os.path.join(tmp, "checks.json")
    json.dump(data, open(data_path, "w"))
    env = dict(os.environ, TILECAST_CLI=CLI, TILECAST_SERVING_DATA=data_path)
    subprocess.run(["node", os.path.join(REPO, "scripts/serving_checks.mjs"), "--json", out], env=env,
                   check=True, stdout=subprocess.DEVNULL)
    return [(r, c["ratio"]) for r, c in zip(rows, json.load(open(out))["rows"])]


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
            got = ratios(rows, paths, tmp)
            all_r = [x for _, x in got]
            by_tp = {tp: [x for r, x in got if r["tp"] == tp] for tp in sorted({r["tp"] for r in rows})}
            print(f"{name}: {len(rows)} rows, median ratio {statistics.median(all_r):.2f}, median absolute "
                  f"error {100 * statistics.median(abs(x - 1) for x in all_r):.1f} %; by TP: " +
                  ", ".join(f"{tp} {statistics.median(v):.2f} ({len(v)})" for tp, v in by_tp.items()))


if __name__ == "__main__":
    main()
