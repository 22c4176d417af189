#!/usr/bin/env python3
"""The fused engine's BF16 expert GEMMs at gpt-oss-120b's shapes on an H100 beside the kernel
times vLLM pull request 39902 prints for its Triton fused-MoE kernel there
(https://github.com/vllm-project/vllm/pull/39902, "Add tuned triton fused_moe configs on H100
for gpt-oss", its description read 5 Dec 2026: one MoE layer's kernel time at batch sizes 1, 8,
256, 512 and 1024, with the default and the tuned configs; figures as printed). A diagnosis for
docs/serving.md (gpt-oss), not a check in CI: it asks whether the BF16 expert path or the MXFP4
one makes gpt-oss's serving forecasts optimistic. Prints forecast / measured per batch.

    python3 scripts/experiments/vllm_moe_h100.py [path/to/tilecast]   (~2 s)

The forecast is `tilecast serve --weights native` (BF16 experts, as the tuned kernel's) at
one decode step of `batch` sequences: its `decode_operators` rows of the routed experts'
GEMMs (gate_up and down), summed over the layers and divided by them. The vLLM kernel also
runs the token alignment, the activation and the sum over the top-k, which the sum leaves out.
"""
import json
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "build/cli/tilecast")

# batch: (default config us, tuned config us), as the pull request prints them
PUBLISHED = {1: (89.02, 85.24), 8: (562.57, 501.58), 256: (2930.81, 2130.23),
             512: (3114.29, 2199.61), 1024: (3387.01, 2314.23)}
LAYERS = 36  # gpt-oss-120b (model_zoo/gpt-oss-120b.json)


def experts_us(batch):
    out = subprocess.run([CLI, "serve", "--gpu", "h100-sxm", "--model", "gpt-oss-120b", "--prompt",
                          "64", "--output", "2", "--batch", str(batch), "--precision", "bf16",
                          "--weights", "native", "--json"], check=True, capture_output=True,
                         text=True).stdout
    rows = json.loads(out)["decode_operators"]
    ms = sum(r["time_ms"] for r in rows if r["name"] in ("experts gate_up", "experts down"))
    return ms / LAYERS * 1000


def main():
    ratios = []
    for batch, (default_us, tuned_us) in PUBLISHED.items():
        us = experts_us(batch)
        ratios.append(us / tuned_us)
        print(f"batch {batch:5d}: forecast {us:8.1f} us, vLLM default {default_us:8.1f}, tuned "
              f"{tuned_us:8.1f}: forecast / tuned {us / tuned_us:.2f}, / default "
              f"{us / default_us:.2f}")
    print(f"forecast / tuned: {min(ratios):.2f}-{max(ratios):.2f}")


if __name__ == "__main__":
    main()
