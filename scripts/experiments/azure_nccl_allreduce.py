#!/usr/bin/env python3
"""The comm model's all-reduce beside published NCCL bus bandwidth of one node (docs/comm.md,
"Beside a cloud's published all-reduce"): the Azure AI Benchmarking Guide's nccl-tests tables,
1 KB to 8 GB in place, of its ND H100 v5 and ND H200 v5 (8 GPUs, NVLS algorithm) and ND GB200 v6
(4 GPUs, ring) results pages (https://github.com/Azure/AI-benchmarking-guide, Azure_Results/;
the H100 page as a fork's copy, samuel-bohman/AI-benchmarking-guide; figures as printed, read 5
Dec 2026). A diagnosis, not a check in CI: prints forecast / measured time per size.

    python3 scripts/experiments/azure_nccl_allreduce.py [path/to/tilecast]   (~1 s)
"""
import json
import os
import statistics
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "build/cli/tilecast")

# nccl-tests' size labels and their bytes (powers of two: 65K = 64 KiB, 132K = 128 KiB, ...)
SIZES = [("1K", 1 << 10), ("2K", 1 << 11), ("4K", 1 << 12), ("8K", 1 << 13), ("16K", 1 << 14),
         ("32K", 1 << 15), ("65K", 1 << 16), ("132K", 1 << 17), ("256K", 1 << 18),
         ("524K", 1 << 19), ("1M", 1 << 20), ("2M", 1 << 21), ("4M", 1 << 22), ("8M", 1 << 23),
         ("16M", 1 << 24), ("33M", 1 << 25), ("67M", 1 << 26), ("134M", 1 << 27),
         ("268M", 1 << 28), ("536M", 1 << 29), ("1G", 1 << 30), ("2G", 1 << 31), ("4G", 1 << 32),
         ("8G", 1 << 33)]
# system, GPUs, NCCL's algorithm as the page names it, bus bandwidth GB/s per size
PUBLISHED = [
    ("dgx-h100", 8, "NVLS",
     [0.07, 0.14, 0.27, 0.53, 0.95, 1.71, 2.72, 5.40, 10.86, 21.35, 43.70, 81.93, 128.73, 172.13,
      234.45, 295.53, 361.78, 400.61, 423.38, 438.46, 466.35, 472.36, 475.54, 478.87]),
    ("dgx-h200", 8, "NVLS",
     [0.06, 0.12, 0.25, 0.49, 0.98, 2.03, 3.97, 7.57, 15.10, 30.02, 57.15, 88.73, 137.77, 179.84,
      240.37, 298.12, 367.56, 413.01, 434.72, 445.62, 468.11, 474.83, 478.73, 480.94]),
    ("gb200-nvl72", 4, "Ring",
     [0.10, 0.19, 0.38, 0.76, 1.46, 2.88, 5.71, 11.29, 22.41, 44.07, 80.48, 110.43, 146.27, 253.46,
      331.09, 422.62, 550.73, 574.19, 593.53, 618.74, 646.87, 666.63, 673.06, 679.61]),
]


def main():
    for system, gpus, algorithm, bus in PUBLISHED:
        ratios = []
        for (label, n), bw in zip(SIZES, bus):
            out = subprocess.run([CLI, "comm", "--system", system, "--bytes", str(n), "--gpus",
                                  str(gpus), "--json"], capture_output=True, text=True, check=True)
            forecast_ms = json.loads(out.stdout)["time_ms"]
            measured_ms = n * 2 * (gpus - 1) / gpus / (bw * 1e9) * 1e3  # bus bandwidth's time
            ratios.append((label, forecast_ms / measured_ms))
        print(f"{system} ({gpus} GPUs, published {algorithm}): " +
              " ".join(f"{label} {r:.2f}" for label, r in ratios))
        small = statistics.median(r for _, r in ratios[:8])
        large = statistics.median(r for _, r in ratios[-8:])
        print(f"  forecast / measured: up to 128 KiB median {small:.2f}, from 128 MiB {large:.2f}")


if __name__ == "__main__":
    main()
