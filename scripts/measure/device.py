"""The measured GPU as a device JSON in the NeuSight dataset's format, and the
machine facts recorded beside the measurements.

Datasheet numbers that no API reports (memory bandwidth, FP32 peak, FP32 lanes
per SM, boost clock) come from the repository's gpu_catalog/*.json entry whose
name, id or alias equals the CUDA/ROCm device name.
"""

import glob
import json
import os
import platform
import re
import shutil
import subprocess
import sys


def file_stem(device_name):
    """'NVIDIA H200' -> 'NVIDIA_H200' (the dataset's devices/ and labels/ names)."""
    s = re.sub(r"\s+", "_", device_name.strip())
    return re.sub(r"[^A-Za-z0-9_.+-]", "_", s) or "unknown_device"


def load_catalog(catalog_dir):
    out = []
    for p in sorted(glob.glob(os.path.join(catalog_dir, "*.json"))):
        try:
            with open(p) as f:
                out.append(json.load(f))
        except (OSError, ValueError):
            pass
    return out


def _norm(s):
    return re.sub(r"\s+", " ", str(s).strip().lower())


def find_catalog_entry(catalog, device_name, gpu_id=None):
    """The catalog entry whose id equals `gpu_id` (when given) or whose name, id or
    an alias equals `device_name` (case-insensitive); None when there is none."""
    if gpu_id:
        for c in catalog:
            if _norm(c.get("id", "")) == _norm(gpu_id):
                return c
        return None
    want = _norm(device_name)
    for c in catalog:
        names = [c.get("id", ""), c.get("name", "")] + list(c.get("aliases", []))
        if any(_norm(n) == want for n in names if n):
            return c
    return None


def close_catalog_entries(catalog, device_name):
    """Entries with a name or alias contained in `device_name` (e.g. 'NVIDIA H200' in
    'NVIDIA H200 NVL'), longest match first: candidates to suggest, never used silently."""
    want = _norm(device_name)
    hits = []
    for c in catalog:
        names = [c.get("name", "")] + list(c.get("aliases", []))
        best = max((len(_norm(n)) for n in names if n and _norm(n) in want), default=0)
        if best >= 3:
            hits.append((best, c))
    hits.sort(key=lambda x: -x[0])
    return [c for _, c in hits]


def _round(x, nd=1):
    r = round(float(x), nd)
    return int(r) if r == int(r) else r


def device_json(name, catalog_entry, num_sm=None, mem_bytes=None, l2_bytes=None):
    """The dataset's device JSON. `num_sm`, `mem_bytes` and `l2_bytes` are what the
    runtime reports (None: take the catalog's). A partitioned GPU (fewer SMs than
    the catalog's) gets the FP32 peak scaled by the SM count."""
    c = catalog_entry
    sms = int(num_sm or c["num_sm"])
    scale = sms / float(c["num_sm"])
    mem_gb = mem_bytes / 2 ** 30 if mem_bytes else c["mem_gb"]
    l2_mb = l2_bytes / 2 ** 20 if l2_bytes else c["l2_mb"]
    d = {
        "Device": name,
        "Vendor": c.get("vendor", "NVIDIA"),
        "Dev_Mem": _round(mem_gb, 0) if mem_gb >= 1 else _round(mem_gb, 2),
        "Mem_Bw": _round(c["mem_bw_gbps"]),
        "Num_Sm": sms,
        "Core_Per_SM": int(c["cores_per_sm"]),
        "Freq": _round(c["boost_clock_mhz"]),
    }
    vec = c["fp32_gflops"] * scale
    mat = c.get("fp32_matrix_gflops", c["fp32_gflops"]) * scale
    if c.get("vendor") == "AMD" or "fp32_matrix_gflops" in c:
        d["SingleFLOPsMM"] = _round(mat, 0)
        d["SingleFLOPsVEC"] = _round(vec, 0)
    else:
        d["SingleFLOPs"] = _round(vec, 0)
    d["L2Cache"] = _round(l2_mb, 2)
    return d


def template_json(name, num_sm=None, mem_bytes=None, l2_bytes=None):
    """What the runtime knows, with the datasheet fields left for the user."""
    return {
        "Device": name,
        "Vendor": "FILL: NVIDIA or AMD",
        "Dev_Mem": _round(mem_bytes / 2 ** 30, 0) if mem_bytes else "FILL: device memory, GB",
        "Mem_Bw": "FILL: memory bandwidth, GB/s (datasheet)",
        "Num_Sm": num_sm if num_sm else "FILL: SMs or compute units",
        "Core_Per_SM": "FILL: FP32 lanes per SM/CU (datasheet or programming guide)",
        "Freq": "FILL: boost clock, MHz",
        "SingleFLOPs": "FILL: FP32 peak, GFLOP/s (AMD: SingleFLOPsMM and SingleFLOPsVEC)",
        "L2Cache": _round(l2_bytes / 2 ** 20, 2) if l2_bytes else "FILL: L2 cache, MB",
    }


def dry_run_json(name):
    """A placeholder device for --device cpu smoke runs: plausible magnitudes so the
    evaluators run end to end; not a description of any GPU. It is laid out as an NVIDIA
    device (the evaluators need a vendor with a kernel-library profile)."""
    cores = os.cpu_count() or 1
    return {"Device": name, "Vendor": "NVIDIA", "Dev_Mem": 16, "Mem_Bw": 20, "Num_Sm": cores, "Core_Per_SM": 8,
            "Freq": 2000, "SingleFLOPs": _round(cores * 8 * 2 * 2.0, 0), "L2Cache": 1}


def _run(cmd, timeout=10):
    """(exit status, output) of a command; None when it is not installed."""
    if not shutil.which(cmd[0]):
        return None
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return p.returncode, (p.stdout.strip() or p.stderr.strip())[:4000]
    except (OSError, subprocess.SubprocessError) as e:
        return -1, f"failed: {e}"


NVSMI_FIELDS = ("name,driver_version,pstate,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,"
                "clocks.applications.graphics,power.draw,power.limit,temperature.gpu,"
                "persistence_mode,compute_mode,mig.mode.current")


NVSMI_BASIC = "name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit"


def smi_snapshot():
    """nvidia-smi / rocm-smi facts (clocks, driver, power), or None where absent."""
    out = {}
    nv = _run(["nvidia-smi", "--query-gpu=" + NVSMI_FIELDS, "--format=csv"])
    if nv is not None and nv[0] != 0:  # an older driver that lacks a field
        nv = _run(["nvidia-smi", "--query-gpu=" + NVSMI_BASIC, "--format=csv"])
    if nv is not None:
        out["nvidia-smi"] = nv[1]
    rocm = _run(["rocm-smi", "--showproductname", "--showclocks", "--showdriverversion"])
    if rocm is not None:
        out["rocm-smi"] = rocm[1]
    return out or None


def machine_facts(torch_mod, device):
    f = {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
    }
    if torch_mod is None:
        return f
    t = torch_mod
    f["torch"] = t.__version__
    f["cuda_runtime"] = getattr(t.version, "cuda", None)
    f["hip_runtime"] = getattr(t.version, "hip", None)
    if device == "cuda" and t.cuda.is_available():
        p = t.cuda.get_device_properties(0)
        f["gpu_name"] = p.name
        f["gpu_count_visible"] = t.cuda.device_count()
        for k in ("multi_processor_count", "total_memory", "major", "minor", "L2_cache_size",
                  "gcnArchName", "max_threads_per_multi_processor", "warp_size",
                  "clock_rate", "memory_clock_rate", "memory_bus_width"):
            v = getattr(p, k, None)
            if v is not None:
                f["props_" + k] = v
        try:
            f["cudnn"] = t.backends.cudnn.version()
        except Exception:  # noqa: BLE001 - informational only
            pass
        try:
            f["driver"] = t.cuda.driver_version() if hasattr(t.cuda, "driver_version") else None
        except Exception:  # noqa: BLE001
            pass
    return f
