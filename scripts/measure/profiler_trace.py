"""A torch.profiler Chrome trace as the kit reads it: the host- and GPU-side ranges of the
record_function marks it set (names with a given prefix), the device kernels, the kernel
launches by correlation id and the CPU operators; and which mark a kernel belongs to. Used by
the kernel-name pass (kernels.py) and the step profiles (step_profile.py)."""

import json
import os
import tempfile

RUNTIME_CATEGORIES = ("cuda_runtime", "cuda_driver", "hip_runtime", "runtime", "hip_driver")


def exported_trace(prof):
    """The Chrome trace of a finished torch.profiler run, as a dict (exported to a temporary
    file, which is removed)."""
    fd, path = tempfile.mkstemp(suffix=".json", prefix="tilecast-trace-")
    os.close(fd)
    try:
        prof.export_chrome_trace(path)
        with open(path) as f:
            return json.load(f)
    finally:
        os.unlink(path)


def num(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


class Trace:
    """host / dev: {mark suffix: (start, end, tid)} in trace order; kernels and cpu_ops: the
    events; launches: {correlation id: launch time}. Times in microseconds."""

    def __init__(self, trace, prefix):
        events = trace.get("traceEvents", []) if isinstance(trace, dict) else trace
        self.host, self.dev, self.kernels, self.launches, self.cpu_ops = {}, {}, [], {}, []
        for e in events:
            if e.get("ph") != "X":
                continue
            name = str(e.get("name", ""))
            cat = str(e.get("cat", "")).lower()
            ts, dur = num(e.get("ts")), num(e.get("dur")) or 0.0
            if ts is None:
                continue
            if name.startswith(prefix):
                ranges = self.dev if cat.startswith("gpu") else self.host
                ranges[name[len(prefix):]] = (ts, ts + dur, e.get("tid"))
                continue
            args = e.get("args") or {}
            if cat == "kernel":
                self.kernels.append(e)
            elif cat in RUNTIME_CATEGORIES:
                c = args.get("correlation")
                if c is not None:
                    self.launches[c] = ts
            elif cat in ("cpu_op", "operator", ""):  # "": the legacy (non-kineto) CPU trace
                self.cpu_ops.append(e)


def owner(kernel, dev, host, launches, slack=0.0):
    """The key of the first range of `dev` holding the kernel's start, else of the first range
    of `host` holding the runtime call that launched it (same correlation id); None."""
    ts = num(kernel.get("ts"))
    for key, r in dev.items():
        if r[0] - slack <= ts <= r[1] + slack:
            return key
    launched = launches.get((kernel.get("args") or {}).get("correlation"))
    if launched is not None:
        for key, r in host.items():
            if r[0] - slack <= launched <= r[1] + slack:
                return key
    return None
