#!/usr/bin/env python3
"""The kernels a serving forecast rests on, measured per precision on this GPU: the linear
layers of LLMs at serving shapes in BF16 and in FP8 (W8A8, e4m3, per-tensor scales, BF16 out,
with and without fast accumulation), grouped-query decode attention in BF16, and the copy
bandwidth. The FP8 transfer (core/data/models/nvidia-half-gemm/manifest.json) and a decode's
attention rate (docs/serving.md, "Engines") are assumptions until such rows exist.

    python3 scripts/measure/serving_kernels.py --out OUT [--budget-s 100]

Writes OUT/kernels-bf16/linear.csv, OUT/kernels-fp8/linear.csv (fast accumulation, as serving
engines run FP8 GEMMs) and OUT/fp8-exact-accum/kernels-fp8/linear.csv (without), in the kit's
kernel CSV (docs/measure.md: N the input features, K the output features) so `tilecast
eval-kernels` reads their precision from the folder; `Latency` is the kernel alone (`Timing`
kernel: the mean of calls replayed from a CUDA graph, as an engine launches them; where capture
fails, of calls launched back to back, which the host's pace bounds below ~15 us: `Graph` says
which), `Latency isolated` the kit's median of isolated calls. OUT/decode_attention.csv,
OUT/summary.json (copy GB/s, the best TFLOP/s per precision, clocks) and OUT/devices/ beside
them. Every shape is tried on its own: a failure is logged.
"""

import time

T0 = time.monotonic()

import argparse  # noqa: E402
import csv  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
import traceback  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import device as devmod  # noqa: E402
import kernels as kmod  # noqa: E402

# Rows of a linear layer: decode batches to long prefills (multiples of 16, as FP8 GEMMs need).
TOKENS = [16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384]
# (out features, in features): Llama 3 8B at TP 1 (QKV, O, gate-up, down), Llama 3 70B at
# TP 2, 4 and 8, Llama 3.1 405B at TP 8, and two squares for the peak.
LAYERS = [
    (6144, 4096), (4096, 4096), (28672, 4096), (4096, 14336),
    (5120, 8192), (8192, 4096), (28672, 8192), (8192, 14336),
    (2560, 8192), (8192, 2048), (14336, 8192), (8192, 7168),
    (1280, 8192), (8192, 1024), (7168, 8192), (8192, 3584),
    (2304, 16384), (16384, 2048), (13312, 16384), (16384, 6656),
    (8192, 8192), (16384, 16384),
]
# Each variant's folder under OUT: the kit's kernels-<dtype>/, whose name gives the precision.
VARIANT_DIRS = {"bf16": "kernels-bf16", "fp8": "kernels-fp8",
                "fp8-exact-accum": os.path.join("fp8-exact-accum", "kernels-fp8")}
VARIANTS = list(VARIANT_DIRS)
# Decode attention: Llama 3 8B's 32 query heads over 8 K/V heads of 128.
ATTN_BATCH = [1, 8, 32, 128]
ATTN_CONTEXT = [512, 2048, 8192]
HEADS, KV_HEADS, HEAD_DIM = 32, 8, 128

COLUMNS = ["OPName", "Latency", "Timing", "Latency isolated", "Graph", "Device", "Kernel Name",
           "Warps per SM", "Blocks per SM", "Grid x", "Grid y", "Grid z", "Block x", "Block y",
           "Block z", "B", "M", "N", "K", "Copies", "Source"]
# Every call reads operands the L2 does not hold, as a model's layers each read their own
# weights: a shape's operands are allocated in as many copies as fill this many L2s, and the
# calls cycle through them (at most MAX_COPIES, at most COPY_BYTES in all).
L2_FILLS = 4
MAX_COPIES = 64
COPY_BYTES = 8 << 30


LOG = []  # the open log file, once main has made the output folder


def log(msg):
    line = f"[{time.monotonic() - T0:7.1f}s] {msg}"
    print(line, flush=True)
    for f in LOG:
        f.write(line + "\n")
        f.flush()


def write_csv(path, columns, rows):
    """A table of the probes (rows of dicts keyed by `columns`), header first."""
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, columns)
        w.writeheader()
        w.writerows(rows)


def copies_for(bytes_per_copy, l2_bytes):
    want = -(-L2_FILLS * l2_bytes // max(bytes_per_copy, 1))
    return int(max(1, min(MAX_COPIES, want, COPY_BYTES // max(bytes_per_copy, 1))))


def cycling(calls):
    """One callable that runs the given calls in turn, one per invocation."""
    state = [0]

    def fn():
        i = state[0]
        state[0] = (i + 1) % len(calls)
        return calls[i]()
    return fn


def linear_call(torch, variant, m, n, k, l2_bytes):
    size = 2 if variant == "bf16" else 1
    c = copies_for((m * k + n * k) * size, l2_bytes)
    return cycling([one_linear(torch, variant, m, n, k) for _ in range(c)]), c


def one_linear(torch, variant, m, n, k):
    dev = "cuda"
    x = torch.empty(m, k, device=dev, dtype=torch.bfloat16).uniform_(0.5, 1.5)
    w = torch.empty(n, k, device=dev, dtype=torch.bfloat16).uniform_(0.5, 1.5)
    if variant == "bf16":
        F = torch.nn.functional
        return lambda: F.linear(x, w)
    a = x.to(torch.float8_e4m3fn)
    b = w.to(torch.float8_e4m3fn).t()  # (K, N), column-major as _scaled_mm wants it
    one = torch.ones((), device=dev, dtype=torch.float32)
    fast = variant == "fp8"
    del x, w
    return lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16, use_fast_accum=fast)


def timed_calls(per_call_ms):
    """How many calls one timing covers: about 5 ms of work, 5 to 200 calls."""
    return int(max(5, min(200, 5.0 / max(per_call_ms, 1e-3))))


def kernel_ms(torch, fn, per_call_ms):
    """(mean ms of one call, True) over timed_calls calls captured in a CUDA graph and replayed,
    so the host's launch pace does not bound them; (back_to_back_ms, False) where capture
    fails."""
    n = timed_calls(per_call_ms)
    try:
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            fn()
        torch.cuda.current_stream().wait_stream(side)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for _ in range(n):
                fn()
        g.replay()
        torch.cuda.synchronize()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        g.replay()
        e.record()
        e.synchronize()
        ms = s.elapsed_time(e) / n
        del g
        return ms, True
    except Exception as ex:  # noqa: BLE001 - fall back to launches from the host
        log(f"graph capture failed ({type(ex).__name__}: {str(ex)[:120]}); back to back")
        torch.cuda.synchronize()
        return back_to_back_ms(torch, fn, per_call_ms), False


def back_to_back_ms(torch, fn, per_call_ms):
    """Mean time of timed_calls calls launched back to back between one pair of events."""
    n = timed_calls(per_call_ms)
    fn()
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    for _ in range(n):
        fn()
    e.record()
    e.synchronize()
    return s.elapsed_time(e) / n


class Sink:
    """One kit CSV per variant, rewritten whole after every shape (the naming pass adds to rows
    already written): each file is written beside itself and then replaces it, so a failed
    rewrite leaves the last good one."""

    def __init__(self, out):
        self.paths = {v: os.path.join(out, d, "linear.csv") for v, d in VARIANT_DIRS.items()}
        self.rows = {v: [] for v in VARIANTS}
        self.flush_all()

    def add(self, variant, row):
        self.rows[variant].append(row)

    def flush_all(self):
        for v, path in self.paths.items():
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path + ".tmp", "w", newline="") as f:
                w = csv.DictWriter(f, COLUMNS)
                w.writeheader()
                w.writerows(self.rows[v])
            os.replace(path + ".tmp", path)


def measure_linears(torch, out, device_name, deadline, timer, l2_bytes):
    sink = Sink(out)
    shapes = [(m, n, k) for (n, k) in LAYERS for m in TOKENS]  # rows, out, in
    done = []  # (variant, m, n, k, row)
    for m, n, k in shapes:
        for v in VARIANTS:
            if time.monotonic() > deadline:
                log("linears: budget reached")
                sink.flush_all()
                return sink, done
            try:
                fn, copies = linear_call(torch, v, m, n, k, l2_bytes)
                iso, _ = kmod.time_call(timer, fn, 3, 21, 5, 60)
                b2b, graph = kernel_ms(torch, fn, iso)
                row = {c: "" for c in COLUMNS}
                row.update({"OPName": "linear", "Latency": repr(b2b), "Timing": "kernel",
                            "Latency isolated": repr(iso), "Graph": "yes" if graph else "no",
                            "Device": device_name, "B": "1", "M": str(m), "N": str(k),
                            "K": str(n), "Copies": str(copies), "Source": f"serving:{v}"})
                sink.add(v, row)
                done.append((v, m, n, k, row))
                log(f"{v} {m}x{n}x{k}: {b2b * 1e3:.1f} us a kernel, {iso * 1e3:.1f} isolated,"
                    f" {2e-9 * m * n * k / b2b:.0f} TFLOP/s")
                del fn
            except Exception as e:  # noqa: BLE001 - one shape's failure is logged, not fatal
                log(f"{v} {m}x{n}x{k}: failed: {type(e).__name__}: {str(e)[:300]}")
                torch.cuda.empty_cache()
        sink.flush_all()
    return sink, done


def name_linears(torch, sink, done, deadline, l2_bytes):
    """One profiled call per measured shape and variant: the kernel it launched."""
    from torch.profiler import ProfilerActivity, profile, record_function
    for v in VARIANTS:
        items = [d for d in done if d[0] == v]
        if not items or time.monotonic() > deadline:
            continue
        try:
            with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
                for j, (_, m, n, k, _) in enumerate(items):
                    if time.monotonic() > deadline:
                        break
                    fn, _ = linear_call(torch, v, m, n, k, l2_bytes)
                    torch.cuda.synchronize()
                    with record_function(f"{kmod.ANNOTATION}{j}"):
                        fn()
                    torch.cuda.synchronize()
                    del fn
            names = kmod.assign_kernels(kmod.exported_trace(prof), len(items), True)
            for j, (_, _, _, _, row) in enumerate(items):
                if j in names:
                    kmod.apply_names(row, names[j])
            log(f"names {v}: {len(names)} of {len(items)}")
        except Exception as e:  # noqa: BLE001
            log(f"names {v}: failed: {type(e).__name__}: {str(e)[:300]}")
    sink.flush_all()


def measure_decode_attention(torch, out, deadline, l2_bytes):
    F = torch.nn.functional
    rows = []
    path = os.path.join(out, "decode_attention.csv")
    cols = ["batch", "context", "heads", "kv_heads", "head_dim", "latency_ms", "kv_bytes",
            "kv_gbps", "copies"]
    for b in ATTN_BATCH:
        for ctx in ATTN_CONTEXT:
            if time.monotonic() > deadline:
                break
            try:
                kv_bytes = 2 * b * KV_HEADS * ctx * HEAD_DIM * 2
                copies = copies_for(kv_bytes, l2_bytes)
                fn = cycling([decode_attention_call(torch, F, b, ctx) for _ in range(copies)])
                fn()
                torch.cuda.synchronize()
                ms, _ = kernel_ms(torch, fn, 0.05)
                rows.append({"batch": b, "context": ctx, "heads": HEADS, "kv_heads": KV_HEADS,
                             "head_dim": HEAD_DIM, "latency_ms": ms, "kv_bytes": kv_bytes,
                             "kv_gbps": kv_bytes / ms / 1e6, "copies": copies})
                log(f"decode attention b{b} ctx{ctx}: {ms * 1e3:.1f} us, "
                    f"{kv_bytes / ms / 1e6:.0f} GB/s of K/V")
                del fn
            except Exception as e:  # noqa: BLE001
                log(f"decode attention b{b} ctx{ctx}: failed: {type(e).__name__}: {str(e)[:300]}")
                torch.cuda.empty_cache()
    write_csv(path, cols, rows)
    return rows


def decode_attention_call(torch, F, b, ctx):
    q = torch.randn(b, HEADS, 1, HEAD_DIM, device="cuda", dtype=torch.bfloat16)
    kk = torch.randn(b, KV_HEADS, ctx, HEAD_DIM, device="cuda", dtype=torch.bfloat16)
    vv = torch.randn_like(kk)
    return lambda: F.scaled_dot_product_attention(q, kk, vv, enable_gqa=True)


def measure_copy(torch):
    res = {}
    try:
        n = 1 << 30  # 1 Gi elements of BF16: 2 GiB each way
        a = torch.empty(n, device="cuda", dtype=torch.bfloat16).uniform_(0.5, 1.5)
        c = torch.empty_like(a)
        ms = back_to_back_ms(torch, lambda: c.copy_(a), 1.0)
        res["copy_gbps"] = 2 * 2 * n / ms / 1e6  # bytes read + written
        d = torch.empty_like(a)
        ms = back_to_back_ms(torch, lambda: torch.add(a, c, out=d), 1.0)
        res["add_gbps"] = 3 * 2 * n / ms / 1e6
        del a, c, d
        torch.cuda.empty_cache()
    except Exception as e:  # noqa: BLE001
        res["error"] = f"{type(e).__name__}: {str(e)[:300]}"
    log(f"streaming: {res}")
    return res


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True)
    p.add_argument("--budget-s", type=float, default=100)
    p.add_argument("--catalog", default=os.path.join(REPO, "gpu_catalog"))
    a = p.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    LOG.append(open(os.path.join(a.out, "log.txt"), "a"))
    import torch
    summary = {"machine": devmod.machine_facts(torch, "cuda"), "smi_start": devmod.smi_snapshot()}
    name = torch.cuda.get_device_name(0)
    props = torch.cuda.get_device_properties(0)
    l2_bytes = int(getattr(props, "L2_cache_size", 0) or (64 << 20))
    summary["l2_bytes"] = l2_bytes
    try:
        entry = devmod.find_catalog_entry(devmod.load_catalog(a.catalog), name)
        if entry is not None:
            os.makedirs(os.path.join(a.out, "devices"), exist_ok=True)
            d = devmod.device_json(name, entry, props.multi_processor_count, props.total_memory,
                                   getattr(props, "L2_cache_size", None))
            with open(os.path.join(a.out, "devices", devmod.file_stem(name) + ".json"), "w") as f:
                json.dump(d, f, indent=2)
    except Exception:  # noqa: BLE001 - the device file can be written elsewhere
        log("device file: " + traceback.format_exc(limit=2))
    end = T0 + a.budget_s
    timer = kmod.Timer(torch, "cuda")
    summary["streaming"] = measure_copy(torch)
    summary["decode_attention"] = measure_decode_attention(torch, a.out, T0 + 0.2 * a.budget_s,
                                                           l2_bytes)
    sink, done = measure_linears(torch, a.out, name, end - 0.12 * a.budget_s, timer,
                                 l2_bytes)
    best = {}
    for v, m, n, k, row in done:
        t = 2e-9 * m * n * k / float(row["Latency"])
        if t > best.get(v, (0,))[0]:
            best[v] = (t, f"{m}x{n}x{k}")
    summary["best_tflops"] = best
    summary["rows"] = {v: len(r) for v, r in sink.rows.items()}
    name_linears(torch, sink, done, end, l2_bytes)
    summary["smi_end"] = devmod.smi_snapshot()
    summary["wall_s"] = time.monotonic() - T0
    with open(os.path.join(a.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2, default=str)
    log(f"done in {summary['wall_s']:.0f} s: {summary['rows']}, best {best}")


if __name__ == "__main__":
    main(sys.argv[1:])
