#!/usr/bin/env python3
"""How much longer each training label's forward phase ran than tilecast forecasts, per GB of
activations the forward allocates (the forecast's own memory estimate).

Why per GB: NeuSight's whole-model harness empties PyTorch's caching allocator before every
timed iteration (gc.collect() and torch.cuda.empty_cache() in its public tracing code), so each
timed forward allocates its activations from the driver again (cudaMalloc / hipMalloc), while
the backward reuses the blocks the freed activations leave. The measurement kit's labels
(data/measured/) keep the cache warm, as a training loop does. A forward excess that scales
with the activations would be that allocation; one that does not is something else.

Usage: python3 scripts/forward_excess.py [--cli PATH] [KIT_DIR ...]
(the NeuSight labels of ../shared/data/neusight, then each kit folder given, e.g.
data/measured/h200/fp32-seed0). docs/model-forecast.md, "What limits the end-to-end error".
"""
import argparse
import glob
import json
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_json(args):
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(args)}: {r.stderr.strip()}")
    return json.loads(r.stdout)


def rows(cli, devices, models, labels):
    device_files = {}
    for f in glob.glob(os.path.join(devices, "*.json")):
        with open(f) as fh:
            device_files[json.load(fh)["Device"]] = f
    report = run_json([cli, "eval-e2e", "--devices", devices, "--models", models, "--labels",
                       labels, "--json"])
    for c in report["cases"]:
        if c["mode"] != "training" or not c.get("phases") or c.get("option"):
            continue
        model_file = os.path.join(models, c["model"] + ".json")
        fc = run_json([cli, "forecast", "--gpu", device_files[c["gpu"]], "--model", model_file,
                       "--mode", "training", "--seq", str(c["seq"]), "--batch", str(c["batch"]),
                       "--json"])
        fw = c["phases"]["forward"]
        act_gb = fc["memory"]["activations_gb"]
        yield {"gpu": c["gpu"], "model": c["model"], "seq": c["seq"], "batch": c["batch"],
               "forward_measured_ms": fw["measured_ms"], "forward_forecast_ms": fw["predicted_ms"],
               "forward_error_pct": fw["error_pct"],
               "backward_error_pct": c["phases"]["backward"]["error_pct"],
               "activations_gb": act_gb, "memory_total_gb": fc["memory"]["total_gb"],
               "capacity_gb": fc["memory"]["capacity_gb"],
               "excess_ms_per_gb": (fw["measured_ms"] - fw["predicted_ms"]) / max(act_gb, 1e-9)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kits", nargs="*", help="measurement kit folders (devices/, models/, labels/)")
    ap.add_argument("--data", default=os.path.join(REPO, "..", "shared", "data", "neusight"))
    ap.add_argument("--cli", default=os.path.join(REPO, "build", "cli", "tilecast"))
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    sets = []
    if os.path.isdir(os.path.join(a.data, "labels")):
        sets.append(("NeuSight (empty cache per iteration)", a.data))
    else:
        print(f"note: no NeuSight labels at {a.data}; the kit folders only", file=sys.stderr)
    sets += [(k, k) for k in a.kits]
    out = []
    for name, d in sets:
        for r in rows(a.cli, os.path.join(d, "devices"), os.path.join(d, "models"),
                      os.path.join(d, "labels")):
            r["labels"] = name
            out.append(r)
    if a.json:
        json.dump(out, sys.stdout, indent=2)
        print()
        return 0
    print(f"{'gpu':<22} {'model':<12} {'seq':>5} {'b':>3} {'fw meas':>9} {'forecast':>9} "
          f"{'fw err %':>8} {'bw err %':>8} {'act GB':>7} {'mem GB':>11} {'excess ms/GB':>12}")
    last = None
    for r in out:
        if r["labels"] != last:
            print(f"-- {r['labels']}")
            last = r["labels"]
        print(f"{r['gpu'][:22]:<22} {r['model'][:12]:<12} {r['seq']:>5} {r['batch']:>3} "
              f"{r['forward_measured_ms']:9.1f} {r['forward_forecast_ms']:9.1f} "
              f"{r['forward_error_pct']:+8.1f} {r['backward_error_pct']:+8.1f} "
              f"{r['activations_gb']:7.2f} {r['memory_total_gb']:5.1f}/{r['capacity_gb']:<5.0f} "
              f"{r['excess_ms_per_gb']:12.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
