"""Kernel measurements: one PyTorch eager call per (op, shape), timed with CUDA
events, written as rows of the NeuSight kernel CSV; kernel names and launch
geometry from a separate torch.profiler pass, so profiling never touches a timing.
"""

import csv
import os
import statistics
import time

from profiler_trace import Trace, exported_trace, num, owner
from shapes import GEMM_OPS, dims_names

COMMON_COLUMNS = ["OPName", "Latency", "Device", "Kernel Name", "Warps per SM", "Blocks per SM",
                  "Grid x", "Grid y", "Grid z", "Block x", "Block y", "Block z"]
SOURCE_COLUMN = "Source"  # extra, last: "random" or "model:<zoo name>:b<batch>:s<seq>"

# Scalars of the one-tensor ("u") ops and the exponent of pow.
SCALAR = 1.5
POWU_EXPONENT = 3.0  # GPT-2's gelu_new computes pow(x, 3.0)


def header(op):
    return COMMON_COLUMNS + list(dims_names(op)) + [SOURCE_COLUMN]


# ------------------------------------------------------------------ op builders

def make_call(torch, op, dims, device, dtype):
    """A zero-argument callable launching `op` on fresh inputs of shape `dims`.
    Inputs are uniform in [0.5, 1.5) (no division by zero, no NaN from pow)."""
    F = torch.nn.functional

    def t(*shape):
        return torch.empty(*shape, device=device, dtype=dtype).uniform_(0.5, 1.5)

    if op == "bmm":
        b, m, n, k = dims
        x, y = t(b, m, n), t(b, n, k)
        return lambda: torch.bmm(x, y)
    if op == "linear":
        _, m, n, k = dims
        x, w, bias = t(m, n), t(k, n), t(k)
        return lambda: F.linear(x, w, bias)
    b, h = dims
    a = t(b, h)
    if op in ("add", "mul", "div", "pow"):
        c = t(b, h)
        f = {"add": torch.add, "mul": torch.mul, "div": torch.div, "pow": torch.pow}[op]
        return lambda: f(a, c)
    if op == "addu":
        return lambda: torch.add(a, SCALAR)
    if op == "mulu":
        return lambda: torch.mul(a, SCALAR)
    if op == "divu":
        return lambda: torch.div(a, SCALAR)
    if op == "powu":
        return lambda: torch.pow(a, POWU_EXPONENT)
    if op == "relu":
        return lambda: torch.relu(a)
    if op == "gelu":
        return lambda: F.gelu(a)
    if op == "tanh":
        return lambda: torch.tanh(a)
    if op == "softmax":
        return lambda: torch.softmax(a, dim=-1)
    if op == "ln":
        w, bias = t(h), t(h)
        return lambda: F.layer_norm(a, (h,), w, bias)
    raise ValueError(f"unknown op {op}")


# ---------------------------------------------------------------------- timing

class Timer:
    """Per-run latency in ms: CUDA events on a GPU (torch.cuda also drives ROCm),
    perf_counter on the CPU."""

    def __init__(self, torch, device):
        self.torch = torch
        self.gpu = device == "cuda"
        if self.gpu:
            self.start = torch.cuda.Event(enable_timing=True)
            self.end = torch.cuda.Event(enable_timing=True)

    def sync(self):
        if self.gpu:
            self.torch.cuda.synchronize()

    def once(self, fn):
        if self.gpu:
            self.start.record()
            fn()
            self.end.record()
            self.end.synchronize()
            return self.start.elapsed_time(self.end)
        t0 = time.perf_counter()
        fn()
        return (time.perf_counter() - t0) * 1e3


def time_call(timer, fn, warmups, max_reps, min_reps, target_ms):
    """Median latency (ms) of one call and the number of timed runs.

    Protocol: `warmups` untimed calls (one when a call takes over 1 ms), then
    between `min_reps` and `max_reps` timed calls, as many as fit in `target_ms`;
    each timed call is bracketed by its own pair of events and waited for before
    the next starts, so every run is an isolated launch (launch latency included,
    as in the training data)."""
    fn()
    timer.sync()
    first = timer.once(fn)
    for _ in range((warmups - 1) if first < 1.0 else 0):
        fn()
    timer.sync()
    reps = int(max(min_reps, min(max_reps, target_ms / max(first, 1e-3))))
    times = [timer.once(fn) for _ in range(reps)]
    return statistics.median(times), reps


# --------------------------------------------------------------------- CSV rows

class CsvSink:
    """One CSV per op under `directory`, header first, each row flushed as it is
    measured, so a run killed at any moment leaves valid files."""

    def __init__(self, directory):
        self.dir = directory
        os.makedirs(directory, exist_ok=True)
        self.rows = {}  # op -> [dict]
        self.files = {}

    def path(self, op):
        return os.path.join(self.dir, op + ".csv")

    def add(self, op, row):
        if op not in self.files:
            f = open(self.path(op), "w", newline="")
            w = csv.DictWriter(f, fieldnames=header(op), lineterminator="\n")
            w.writeheader()
            self.files[op] = (f, w)
            self.rows[op] = []
        f, w = self.files[op]
        w.writerow(row)
        f.flush()
        self.rows[op].append(row)

    def rewrite(self, op):
        """Rewrites one op's file from memory (after kernel names were filled in)."""
        f, _ = self.files[op]
        f.close()
        tmp = self.path(op) + ".tmp"
        with open(tmp, "w", newline="") as g:
            w = csv.DictWriter(g, fieldnames=header(op), lineterminator="\n")
            w.writeheader()
            w.writerows(self.rows[op])
        os.replace(tmp, self.path(op))
        g = open(self.path(op), "a", newline="")
        self.files[op] = (g, csv.DictWriter(g, fieldnames=header(op), lineterminator="\n"))

    def close(self):
        for f, _ in self.files.values():
            f.close()

    def count(self):
        return sum(len(r) for r in self.rows.values())


def make_row(op, dims, latency_ms, device_name, source):
    row = {c: "" for c in header(op)}
    row.update({"OPName": op, "Latency": repr(float(latency_ms)), "Device": device_name,
                SOURCE_COLUMN: source})
    for n, v in zip(dims_names(op), dims):
        row[n] = str(int(v))
    return row


# ------------------------------------------------------------ kernel names pass

ANNOTATION = "tcm#"
GEMM_HINTS = ("gemm", "cutlass", "xmma", "cijk", "matmul", "dot", "mm")


def assign_kernels(trace, n, gemm):
    """Maps a Chrome trace from torch.profiler to the annotated calls 0..n-1:
    {index: {"name", "grid", "block", "warps", "blocks"}}. A device kernel belongs
    to call i when it runs inside the GPU-side range of annotation i, or when the
    runtime call that launched it (same correlation id) lies inside the host-side
    range. Without device kernels (CPU runs) the outermost operator is taken.
    Of several kernels of one call the longest wins (a GEMM-named one for GEMMs)."""
    t = Trace(trace, ANNOTATION)

    def calls(ranges):  # the annotations numbered 0..n-1, in trace order
        out = {}
        for key, r in ranges.items():
            try:
                i = int(key)
            except ValueError:
                continue
            if i < n:
                out[i] = r
        return out

    host, dev = calls(t.host), calls(t.dev)
    found = {i: [] for i in range(n)}
    for k in t.kernels:
        idx = owner(k, dev, host, t.launches, slack=0.5)
        if idx is not None:
            found[idx].append(k)
    if not t.kernels:
        for e in t.cpu_ops:
            ts = num(e.get("ts"))
            idx = next((i for i, r in host.items() if r[0] <= ts <= r[1] and e.get("tid") == r[2]),
                       None)
            if idx is not None:
                found[idx].append(e)

    out = {}
    for i, ks in found.items():
        if not ks:
            continue
        pool = ks
        if gemm:
            pool = [k for k in ks if any(h in str(k.get("name", "")).lower()
                                         for h in GEMM_HINTS)] or ks
        k = max(pool, key=lambda e: num(e.get("dur")) or 0.0)
        a = k.get("args") or {}
        out[i] = {"name": str(k.get("name", "")), "grid": a.get("grid"), "block": a.get("block"),
                  "warps": a.get("warps per SM"), "blocks": a.get("blocks per SM")}
    return out


def apply_names(row, info):
    """Fills Kernel Name and the launch geometry of a row; unknown fields stay empty."""
    row["Kernel Name"] = info.get("name", "")

    def triple(v):
        if isinstance(v, (list, tuple)) and len(v) == 3 and all(
                isinstance(x, (int, float)) and x >= 1 for x in v):
            return [str(int(x)) for x in v]
        return None

    g, b = triple(info.get("grid")), triple(info.get("block"))
    if g:
        row["Grid x"], row["Grid y"], row["Grid z"] = g
    if b:
        row["Block x"], row["Block y"], row["Block z"] = b
    for key, col in (("warps", "Warps per SM"), ("blocks", "Blocks per SM")):
        v = num(info.get(key))
        if v is not None:
            row[col] = repr(round(v, 6))


def profile_names(torch, op, dims_list, device, dtype, timer, deadline):
    """Runs each shape once under torch.profiler and returns {index: info}."""
    from torch.profiler import ProfilerActivity, profile, record_function
    acts = [ProfilerActivity.CPU]
    if device == "cuda":
        acts.append(ProfilerActivity.CUDA)
    with profile(activities=acts) as prof:
        for i, d in enumerate(dims_list):
            if time.monotonic() > deadline:
                break
            try:
                fn = make_call(torch, op, d, device, dtype)
                timer.sync()
                with record_function(f"{ANNOTATION}{i}"):
                    fn()
                timer.sync()
                del fn
            except Exception:  # noqa: BLE001 - an OOM here only costs a name
                if device == "cuda":
                    torch.cuda.empty_cache()
    return assign_kernels(exported_trace(prof), len(dims_list), op in GEMM_OPS)
