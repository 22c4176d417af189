"""Where a whole-model step spends its time: one extra step of a label's case under
torch.profiler, after its timed runs (so profiling never touches the label's timing),
summarised per phase as device time per kernel name, the GPU's busy time (the union of
its kernels' intervals) and its span (first kernel start to last kernel end). Span minus
busy is time the GPU sat idle inside the step: host-bound stretches (Python dispatch,
device-to-host synchronisations), which no per-kernel forecast holds.

Writes profiles/<label>.csv (phase, kernel, count, device_ms) and profiles/<label>.json
(the totals); scripts/profile_vs_forecast.py compares them with tilecast's forecast."""

import csv
import json
import os

from profiler_trace import Trace, exported_trace, num, owner

PHASE_MARK = "tilecast-phase#"  # record_function names: tilecast-phase#forward, #backward
PHASES = ("forward", "backward")


def _union_ms(intervals):
    """Total length (ms) of the union of [start, end) intervals given in microseconds."""
    total, end = 0.0, None
    for s, e in sorted(intervals):
        if end is None or s > end:
            total += e - s
            end = e
        elif e > end:
            total += e - end
            end = e
    return total / 1e3


def summarize(trace):
    """{phase: {"kernels", "device_ms", "busy_ms", "span_ms", "host_ms", "by_kernel":
    {name: [count, device_ms]}}} from a Chrome trace of torch.profiler. A kernel
    belongs to a phase when it runs inside the phase's GPU-side range, or when the
    runtime call that launched it (same correlation id) lies inside the host-side range.
    Phases without kernels are left out."""
    t = Trace(trace, PHASE_MARK)
    host = {p: r for p, r in t.host.items() if p in PHASES}
    dev = {p: r for p, r in t.dev.items() if p in PHASES}
    out = {}
    for k in t.kernels:
        p = owner(k, dev, host, t.launches)
        if p is None:
            continue
        ts, dur = num(k.get("ts")), num(k.get("dur")) or 0.0
        s = out.setdefault(p, {"intervals": [], "by_kernel": {}})
        s["intervals"].append((ts, ts + dur))
        c = s["by_kernel"].setdefault(str(k.get("name", "")), [0, 0.0])
        c[0] += 1
        c[1] += dur / 1e3
    for p, s in out.items():
        iv = s.pop("intervals")
        s["kernels"] = len(iv)
        s["device_ms"] = sum(e - b for b, e in iv) / 1e3
        s["busy_ms"] = _union_ms(iv)
        s["span_ms"] = (max(e for _, e in iv) - min(b for b, _ in iv)) / 1e3
        h = host.get(p)
        s["host_ms"] = (h[1] - h[0]) / 1e3 if h else None
    return out


def write(directory, label, summary, measured):
    """profiles/<label>.csv and .json; `measured` is the label's {fw_latency, bwall_latency}."""
    os.makedirs(directory, exist_ok=True)
    base = os.path.join(directory, label)
    with open(base + ".csv.tmp", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["phase", "kernel", "count", "device_ms"])
        for p in PHASES:
            ks = summary.get(p, {}).get("by_kernel", {})
            for name, (n, ms) in sorted(ks.items(), key=lambda kv: -kv[1][1]):
                w.writerow([p, name, n, repr(round(ms, 6))])
    os.replace(base + ".csv.tmp", base + ".csv")
    totals = {"label": label,
              "measured_ms": {"forward": measured.get("fw_latency"),
                              "backward": measured.get("bwall_latency")},
              "note": "one profiled step after the timed runs; span - busy is GPU idle time"}
    for p in PHASES:
        if p in summary:
            totals[p] = {k: (round(v, 4) if isinstance(v, float) else v)
                         for k, v in summary[p].items() if k != "by_kernel"}
    with open(base + ".json.tmp", "w") as f:
        json.dump(totals, f, indent=2)
        f.write("\n")
    os.replace(base + ".json.tmp", base + ".json")
    return totals


def profile_step(torch, step, device):
    """Runs step(mark) once under torch.profiler; `mark(phase)` is a context manager the
    step wraps its forward and backward in. Returns the Chrome trace as a dict."""
    from torch.profiler import ProfilerActivity, profile, record_function
    acts = [ProfilerActivity.CPU]
    if device == "cuda":
        acts.append(ProfilerActivity.CUDA)
    with profile(activities=acts) as prof:
        step(lambda phase: record_function(PHASE_MARK + phase))
        if device == "cuda":
            torch.cuda.synchronize()
    return exported_trace(prof)
