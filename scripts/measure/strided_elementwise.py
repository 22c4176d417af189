#!/usr/bin/env python3
"""PyTorch's element-wise add with a broadcast operand beside the same add on contiguous
operands, on this GPU: the broadcast takes TensorIterator's strided path (an offset per operand
and element, no vector loads), which the kernel models never measured. The Switch Transformer's
position bias plus its mask ran there at about 0.75 TB/s on an H200 where a contiguous add
streamed 4.4 (data/measured/h200/session-2026-12-04/README.md).

    python3 scripts/measure/strided_elementwise.py --out OUT [--budget-s 20]

Writes OUT/strided_elementwise.csv: pattern, shape, output elements, bytes moved (each operand
read once, the output written once), the mean time of calls replayed from a CUDA graph (back to
back where capture fails), GB/s and output elements per SM per clock at the GPU's current SM
clock (nvidia-smi), for:
  contiguous   (b, h, s, s) + (b, h, s, s)
  t5_bias      (1, h, s, s) + (b, 1, s, s)    the T5 / Switch position bias plus the mask
  row_bias     (n, d) + (d,)                  a bias over rows
"""

import time

T0 = time.monotonic()

import argparse  # noqa: E402
import math  # noqa: E402
import os  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import kernels as kmod  # noqa: E402
import serving_kernels as skmod  # noqa: E402

COLUMNS = ["pattern", "shape", "out_elements", "bytes", "latency_ms", "gbps",
           "elements_per_sm_clock", "sm_clock_mhz", "graph"]
# (b, h, s): the Switch labels' attention shapes (32 heads) and smaller ones.
ATTENTION = [(1, 32, 2048), (4, 32, 512), (1, 32, 1024), (8, 16, 512)]
ROWS = [(16384, 4096), (4096, 16384)]


def sm_clock_mhz():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=10).stdout.split()
        return float(out[0])
    except Exception:  # noqa: BLE001 - the rate per clock is then left out
        return 0.0


def cases(torch):
    def t(*shape):
        return torch.empty(*shape, device="cuda", dtype=torch.float32).uniform_(0.5, 1.5)

    for b, h, s in ATTENTION:
        yield "contiguous", (b, h, s, s), t(b, h, s, s), t(b, h, s, s)
        yield "t5_bias", (b, h, s, s), t(1, h, s, s), t(b, 1, s, s)
    for n, d in ROWS:
        yield "row_bias", (n, d), t(n, d), t(d)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True)
    p.add_argument("--budget-s", type=float, default=20)
    a = p.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    skmod.LOG.append(open(os.path.join(a.out, "log.txt"), "a"))
    import torch
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    timer = kmod.Timer(torch, "cuda")
    rows = []
    for pattern, shape, x, y in cases(torch):
        if time.monotonic() - T0 > a.budget_s:
            skmod.log("strided element-wise: budget reached")
            break
        try:
            def fn():
                return torch.add(x, y)
            once, _ = kmod.time_call(timer, fn, 1, 3, 1, 5)  # sizes the replay (~5 ms of work)
            ms, graph = skmod.kernel_ms(torch, fn, once)
            clock = sm_clock_mhz()
            out = math.prod(shape)
            moved = 4 * (x.numel() + y.numel() + out)
            rows.append({"pattern": pattern, "shape": "x".join(map(str, shape)),
                         "out_elements": out, "bytes": moved, "latency_ms": ms,
                         "gbps": moved / ms / 1e6,
                         "elements_per_sm_clock": out / (ms * 1e-3 * sms * clock * 1e6)
                         if clock > 0 else "",
                         "sm_clock_mhz": clock, "graph": "yes" if graph else "no"})
            skmod.log(f"{pattern} {shape}: {ms * 1e3:.1f} us, {moved / ms / 1e6:.0f} GB/s")
        except Exception as e:  # noqa: BLE001 - one case's failure is logged, not fatal
            skmod.log(f"{pattern} {shape}: failed: {type(e).__name__}: {str(e)[:200]}")
        del x, y
        torch.cuda.empty_cache()
    skmod.write_csv(os.path.join(a.out, "strided_elementwise.csv"), COLUMNS, rows)


if __name__ == "__main__":
    main(sys.argv[1:])
