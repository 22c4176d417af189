#!/usr/bin/env python3
"""ROCm vs CUDA PyTorch graphs in the NeuSight per-operator labels (issue 13 item 2).

For every run measured on an AMD GPU and on the NVIDIA GPU it is compared with (same model,
mode, sequence and batch), this reads the two per-operator CSVs (one transformer layer traced
with torch.fx, timed per node) in place and reports:
  * whether the traced graphs are the same (the same nodes, in the same order or not), and
  * per operator kind, the AMD / NVIDIA time ratio of the forward and backward passes, beside
    the two GPUs' DRAM bandwidth ratio (what a memory-bound kernel's ratio would be).
A ROCm graph difference would show as extra or missing nodes, or as an operator whose ratio
is far from that of the other operators of its kind.

Usage: scripts/experiments/amd_graph_diff.py [--data ../shared/data/neusight] [--min-ms 0.3]
"""
import argparse
import collections
import csv
import json
import os
import re

PAIRS = [  # AMD GPU, the NVIDIA GPU whose labels share its runs
    ("AMD_Instinct_MI100", "NVIDIA_A100-PCIE-40GB"),
    ("AMD_Instinct_MI210", "NVIDIA_A100_80GB_PCIe"),
]


def node_key(row):
    """The node's operator kind: the module name without layer numbers, or the function."""
    if row["op"] == "call_module":
        return "module " + re.sub(r"_?\d+_?", "_", row["Name"]).strip("_")
    target = re.sub(r" at 0x[0-9a-f]+", "", row["target"])
    target = re.sub(r"<(built-in )?(function|method) (\w+).*>", r"\3", target)
    return row["op"].replace("call_", "") + " " + target


def read_graph(path):
    nodes, times = [], collections.OrderedDict()
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row["op"] in ("placeholder", "output"):
                continue
            key = node_key(row)
            nodes.append(key)
            t = times.setdefault(key, [0.0, 0.0, 0])
            t[0] += float(row["fw_latency"] or 0)
            t[1] += float(row["bw_latency"] or 0) + float(row["acc_latency"] or 0)
            t[2] += 1
    return nodes, times


def bandwidth(data, device_dir):
    with open(os.path.join(data, "devices", device_dir + ".json")) as f:
        return json.load(f)["Mem_Bw"]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", default="../shared/data/neusight")
    p.add_argument("--min-ms", type=float, default=0.3,
                   help="leave out operators under this many ms on both GPUs")
    a = p.parse_args()
    labels = os.path.join(a.data, "labels")
    for amd, nvidia in PAIRS:
        bw_ratio = bandwidth(a.data, nvidia) / bandwidth(a.data, amd)
        runs = sorted(f[:-4] for f in os.listdir(os.path.join(labels, amd)) if f.endswith(".csv"))
        for run in runs:
            other = os.path.join(labels, nvidia, run + ".csv")
            if not os.path.exists(other):
                continue
            amd_nodes, amd_t = read_graph(os.path.join(labels, amd, run + ".csv"))
            nv_nodes, nv_t = read_graph(other)
            if amd_nodes == nv_nodes:
                same = "same graph"
            elif sorted(amd_nodes) == sorted(nv_nodes):
                same = "same nodes, traced in another order"
            else:
                same = "GRAPHS DIFFER"
            print(f"{amd} vs {nvidia}, {run}: {len(amd_nodes)} / {len(nv_nodes)} nodes, {same};"
                  f" bandwidth ratio {bw_ratio:.2f}")
            for key, (fw, bw, n) in amd_t.items():
                nfw, nbw, _ = nv_t.get(key, (0.0, 0.0, 0))
                for phase, t, nt in (("forward", fw, nfw), ("backward", bw, nbw)):
                    if max(t, nt) < a.min_ms or nt <= 0:
                        continue
                    print(f"  {key[:44]:44s} x{n:<2d} {phase:8s} AMD {t:8.2f} ms"
                          f"  NVIDIA {nt:8.2f} ms  ratio {t / nt:5.2f}")


if __name__ == "__main__":
    main()
