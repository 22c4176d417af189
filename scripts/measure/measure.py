#!/usr/bin/env python3
"""tilecast measurement kit: measures kernels and whole models on this machine's
GPU in the formats `tilecast eval-kernels` and `tilecast eval-e2e` read.

    python3 scripts/measure/measure.py --out OUT/h200 --budget-s 420

Writes OUT/devices/<Device>.json, OUT/kernels/<op>.csv, OUT/models/<model>.json,
OUT/labels/<Device>/<model>-<inf|train>-<seq>-<batch>.json, OUT/machine.json,
OUT/log.txt and OUT/README.md. Protocol and options: docs/measure.md.
"""

import time

T0 = time.monotonic()  # the budget counts from here, imports included

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import platform  # noqa: E402
import shutil  # noqa: E402
import signal  # noqa: E402
import sys  # noqa: E402
import traceback  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import device as devmod  # noqa: E402
import kernels as kmod  # noqa: E402
import models as mmod  # noqa: E402
import shapes as smod  # noqa: E402
import step_profile as pmod  # noqa: E402

DTYPES = {"fp32": ("float32", 4), "bf16": ("bfloat16", 2), "fp16": ("float16", 2)}


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="Measure kernels and whole models on this GPU for tilecast's evaluators.")
    p.add_argument("--out", required=True, help="output folder (created)")
    p.add_argument("--budget-s", type=float, default=420,
                   help="total wall-clock budget in seconds, imports included (default 420)")
    p.add_argument("--kernels-share", type=float, default=0.6,
                   help="share of the budget for kernels before the models start (default 0.6); "
                        "time the models leave over goes back to kernels")
    p.add_argument("--device", choices=("cuda", "cpu"), default="cuda",
                   help="cuda (NVIDIA or ROCm) or cpu (a smoke test of the kit itself)")
    p.add_argument("--dtype", choices=tuple(DTYPES), default="fp32",
                   help="fp32 (default; TF32 off) is what tilecast forecasts; bf16/fp16 results "
                        "go to kernels-<dtype>/ and labels with the option -<dtype>")
    p.add_argument("--seed", type=int, default=0, help="shape generator seed (default 0)")
    p.add_argument("--ops", default=",".join(smod.ALL_OPS),
                   help="comma-separated ops (default: all 15)")
    p.add_argument("--models", default="",
                   help="comma-separated model zoo names for labels and model-derived shapes "
                        "(default: the built-in list); 'none' for kernels only")
    p.add_argument("--cases", default="",
                   help="explicit label cases 'model:inf|train:seq:batch,...' (overrides the "
                        "built-in list)")
    p.add_argument("--experts-implementation", choices=("eager", "grouped_mm", "batched_mm"),
                   help="how a mixture of experts runs its experts (transformers 5's "
                        "experts_implementation; default: the library's, grouped_mm in 5.x); "
                        "each label records the one that ran")
    p.add_argument("--max-kernels", type=int, default=0,
                   help="stop after this many kernels (default 0: the budget decides)")
    p.add_argument("--warmups", type=int, default=3, help="untimed calls per kernel (default 3)")
    p.add_argument("--reps", type=int, default=21, help="most timed calls per kernel (default 21)")
    p.add_argument("--min-reps", type=int, default=5, help="fewest timed calls (default 5)")
    p.add_argument("--target-ms", type=float, default=100,
                   help="timed calls per kernel are cut to fit this many ms (default 100)")
    p.add_argument("--max-kernel-ms", type=float, default=25,
                   help="skip shapes whose estimated single call exceeds this (default 25)")
    p.add_argument("--model-share", type=float, default=0.25,
                   help="share of model-derived shapes among the kernels (default 0.25)")
    p.add_argument("--model-warmups", type=int, default=2)
    p.add_argument("--model-reps", type=int, default=5)
    p.add_argument("--no-kernel-names", action="store_true",
                   help="skip the torch.profiler pass that records kernel names and geometry")
    p.add_argument("--names-share", type=float, default=0.08,
                   help="share of the budget kept for the kernel-name pass (default 0.08, at most 45 s)")
    p.add_argument("--empty-cache-each-run", action="store_true",
                   help="empty PyTorch's caching allocator before every timed whole-model run, "
                        "as NeuSight's harness does: each forward then allocates its activations "
                        "from the driver again (scripts/forward_excess.py); default: warm cache")
    p.add_argument("--profile-labels", action="store_true",
                   help="after each label's timed runs, one more step under torch.profiler: "
                        "profiles/<label>.csv and .json (device time per kernel, GPU busy and "
                        "idle time; scripts/profile_vs_forecast.py)")
    p.add_argument("--device-json",
                   help="a device JSON (dataset format) to use instead of the catalog lookup; "
                        "needed for GPUs the catalog does not list")
    p.add_argument("--gpu-id", help="the gpu_catalog id to describe this GPU (default: by name)")
    p.add_argument("--zoo", default=os.path.join(REPO, "model_zoo"))
    p.add_argument("--catalog", default=os.path.join(REPO, "gpu_catalog"))
    return p.parse_args(argv)


class Run:
    """Logging, the clock and the output folder of one run."""

    def __init__(self, args):
        self.args = args
        self.out = args.out
        os.makedirs(self.out, exist_ok=True)
        self.logf = open(os.path.join(self.out, "log.txt"), "a")
        self.end = T0 + args.budget_s - 3.0  # leave a moment to write the summary
        self.facts = {"tool": "tilecast scripts/measure/measure.py", "argv": sys.argv[1:],
                      "settings": {}, "phases": {}, "kernels": {}, "labels": [],
                      "failures": [], "status": "running"}

    def elapsed(self):
        return time.monotonic() - T0

    def left(self, until=None):
        return (until if until is not None else self.end) - time.monotonic()

    def log(self, msg):
        line = f"[{self.elapsed():7.1f}s] {msg}"
        print(line, flush=True)
        self.logf.write(line + "\n")
        self.logf.flush()

    def fail(self, what, err):
        msg = f"{what}: {type(err).__name__}: {str(err).splitlines()[0][:300] if str(err) else ''}"
        self.facts["failures"].append(msg)
        self.log("FAILED " + msg)

    def write_json(self, name, obj):
        path = os.path.join(self.out, name)
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(obj, f, indent=2, default=str)
            f.write("\n")
        os.replace(tmp, path)


class Stop(Exception):
    pass


def on_signal(signum, _frame):
    raise Stop(f"signal {signum}")


# --------------------------------------------------------------------- setup

def setup_torch(run):
    t = time.monotonic()
    os.environ.setdefault("KINETO_LOG_LEVEL", "5")  # keep the profiler pass quiet
    import torch
    run.log(f"imported torch {torch.__version__} in {time.monotonic() - t:.1f}s")
    a = run.args
    if a.device == "cuda":
        if not torch.cuda.is_available():
            raise SystemExit("no CUDA/ROCm device visible to torch (use --device cpu for a smoke test)")
        torch.cuda.init()
    run.facts["settings"]["fp32_matmul"] = tf32_off(torch)
    torch.manual_seed(a.seed)
    return torch


def tf32_off(torch):
    """FP32 GEMMs in IEEE FP32, not TF32, through the legacy flags only
    (`allow_tf32`, `set_float32_matmul_precision`): torch >= 2.9 also has per-backend
    `fp32_precision` and refuses to read flags set through a mix of the two APIs, so
    one API is used throughout and read back. Returns what is in effect."""
    import warnings
    b = torch.backends
    state = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch >= 2.9 calls the legacy flags deprecated
        for name, obj in (("cuda.matmul.allow_tf32", b.cuda.matmul),
                          ("cudnn.allow_tf32", b.cudnn)):
            try:
                obj.allow_tf32 = False
                state[name] = obj.allow_tf32
            except Exception as e:  # noqa: BLE001 - record and go on
                state[name] = f"not set: {e}"
        try:
            torch.set_float32_matmul_precision("highest")
            state["float32_matmul_precision"] = torch.get_float32_matmul_precision()
        except Exception as e:  # noqa: BLE001
            state["float32_matmul_precision"] = f"not set: {e}"
    return state


def describe_device(run, torch):
    """(device name, dataset device JSON or None, numbers for estimates)."""
    a = run.args
    if a.device == "cpu":
        name = "CPU dry run " + (platform.machine() or "cpu")
        return name, devmod.dry_run_json(name), "dry-run placeholder"
    p = torch.cuda.get_device_properties(0)
    name = p.name
    num_sm = getattr(p, "multi_processor_count", None)
    mem = getattr(p, "total_memory", None)
    l2 = getattr(p, "L2_cache_size", None) or None
    if a.device_json:
        with open(a.device_json) as f:
            d = json.load(f)
        if d.get("Device") != name:
            run.log(f"note: --device-json names '{d.get('Device')}'; the GPU calls itself "
                    f"'{name}'; rows use the JSON's name")
        return d["Device"], d, f"--device-json {a.device_json}"
    cat = devmod.load_catalog(a.catalog)
    entry = devmod.find_catalog_entry(cat, name, a.gpu_id)
    if entry is None:
        near = devmod.close_catalog_entries(cat, name)
        run.facts["catalog_candidates"] = [c["id"] for c in near]
        if near:
            run.log(f"note: no catalog entry is named '{name}'; close: "
                    f"{', '.join(c['id'] for c in near[:4])} (rerun with --gpu-id ID if one is "
                    "this GPU)")
        return name, None, "unknown"
    if num_sm and int(num_sm) != int(entry["num_sm"]):
        run.log(f"note: {num_sm} SMs visible, the catalog's {entry['id']} has {entry['num_sm']} "
                "(a partition?): FP32 peak scaled by the SM count")
    return name, devmod.device_json(name, entry, num_sm, mem, l2), f"gpu_catalog/{entry['id']}.json"


def numbers_for_estimates(dev_json):
    def num(k, default):
        v = (dev_json or {}).get(k)
        return float(v) if isinstance(v, (int, float)) else default
    g = num("SingleFLOPs", 0) or num("SingleFLOPsMM", 0) or 20000.0
    return g, num("Mem_Bw", 1000.0)


# ------------------------------------------------------------------- kernels

class KernelPhase:
    def __init__(self, run, torch, device_name, gflops, bw):
        a = run.args
        self.run, self.torch, self.device_name = run, torch, device_name
        self.dtype = getattr(torch, DTYPES[a.dtype][0])
        self.elem = DTYPES[a.dtype][1]
        sub = "kernels" if a.dtype == "fp32" else "kernels-" + a.dtype
        self.sink = kmod.CsvSink(os.path.join(run.out, sub))
        self.timer = kmod.Timer(torch, a.device)
        if a.device == "cuda":
            free_b, _ = torch.cuda.mem_get_info()
            max_bytes = 0.35 * free_b
            max_ms = a.max_kernel_ms
        else:
            max_bytes, max_ms = 64e6, min(a.max_kernel_ms, 5.0)
        self.limits = {"max_ms": max_ms, "peak_gflops": gflops, "bw_gbps": bw,
                       "max_bytes": max_bytes, "elem_bytes": self.elem}
        ops = [o.strip() for o in a.ops.split(",") if o.strip()]
        bad = [o for o in ops if o not in smod.ALL_OPS]
        if bad:
            raise SystemExit(f"--ops: unknown {bad}; known: {','.join(smod.ALL_OPS)}")
        zoo_models = [m for m in run.model_names if os.path.exists(os.path.join(a.zoo, m + ".json"))]
        mshapes = smod.model_shapes(a.zoo, zoo_models, self.limits, run.log)
        n_random = a.max_kernels or 6000
        self.plan = smod.plan(ops, n_random, a.seed, self.limits, mshapes, a.model_share)
        if a.max_kernels:
            self.plan = self.plan[:a.max_kernels]
        run.log(f"kernel plan: {len(self.plan)} shapes over {len(ops)} ops "
                f"({sum(1 for x in self.plan if x[2] != 'random')} model-derived), "
                f"single-call cap {max_ms:g} ms (estimated), inputs <= {max_bytes / 1e9:.1f} GB")
        self.next = 0
        self.fail_count = {}
        self.ok_count = {}
        self.dropped = set()
        self.meta = []  # (op, row index) -> dims, for the names pass

    def measure(self, until, label):
        run, a, torch = self.run, self.run.args, self.torch
        start = time.monotonic()
        done0 = self.sink.count()
        last = start
        run.log(f"[{label}] start: {run.left(until):.0f}s for kernels, "
                f"{len(self.plan) - self.next} shapes left in the plan")
        while self.next < len(self.plan) and time.monotonic() < until:
            op, dims, src = self.plan[self.next]
            self.next += 1
            if op in self.dropped:
                continue
            try:
                fn = kmod.make_call(torch, op, dims, a.device, self.dtype)
                lat, reps = kmod.time_call(self.timer, fn, a.warmups, a.reps, a.min_reps,
                                           a.target_ms)
                del fn
                self.sink.add(op, kmod.make_row(op, dims, lat, self.device_name, src))
                self.meta.append((op, len(self.sink.rows[op]) - 1, dims))
                self.ok_count[op] = self.ok_count.get(op, 0) + 1
            except Stop:
                raise
            except Exception as e:  # noqa: BLE001 - one bad shape never ends the run
                oom = "out of memory" in str(e).lower()
                self.fail_count[op] = self.fail_count.get(op, 0) + 1
                if self.fail_count[op] <= 3 or oom:
                    run.fail(f"kernel {op} {dims}", e)
                if oom and a.device == "cuda":
                    torch.cuda.empty_cache()
                if self.fail_count[op] >= 20 and not self.ok_count.get(op):
                    self.dropped.add(op)
                    run.log(f"op {op} dropped after 20 failures")
            now = time.monotonic()
            if now - last >= 5 or self.next == len(self.plan):
                last = now
                done = self.sink.count()
                rate = (done - done0) / max(now - start, 1e-6)
                eta_plan = (len(self.plan) - self.next) / max(rate, 1e-6)
                run.log(f"[{label}] {done}/{len(self.plan)} kernels, {rate:.1f}/s, phase ends in "
                        f"{max(until - now, 0):.0f}s (~{done + int(rate * max(until - now, 0))} "
                        f"by then; the whole plan would need {eta_plan:.0f}s more)")
        run.log(f"[{label}] done: {self.sink.count()} kernels measured so far")

    def name_pass(self, until):
        """Kernel names and launch geometry, GEMMs first, in chunks per op."""
        run, a = self.run, self.run.args
        by_op = {}
        for op, i, dims in self.meta:
            by_op.setdefault(op, []).append((i, dims))
        order = [o for o in smod.ALL_OPS if o in by_op]
        named = 0
        chunk = 32
        for op in order:
            items = by_op[op]
            for c in range(0, len(items), chunk):
                if time.monotonic() > until - 2:
                    break
                part = items[c:c + chunk]
                try:
                    info = kmod.profile_names(self.torch, op, [d for _, d in part], a.device,
                                              self.dtype, self.timer, until - 2)
                except Stop:
                    raise
                except Exception as e:  # noqa: BLE001
                    run.fail(f"kernel-name pass ({op})", e)
                    run.log("kernel-name pass stopped; names stay empty")
                    self.sink.rewrite(op)
                    return named
                for j, (row_i, _) in enumerate(part):
                    if j in info:
                        kmod.apply_names(self.sink.rows[op][row_i], info[j])
                        named += 1
            self.sink.rewrite(op)
            run.log(f"[names] {op}: {sum(1 for r in self.sink.rows[op] if r['Kernel Name'])}"
                    f"/{len(self.sink.rows[op])} rows named")
        return named


# -------------------------------------------------------------------- models

def parse_cases(text):
    out = []
    for item in text.split(","):
        if not item.strip():
            continue
        m, mode, seq, batch = item.strip().split(":")
        if mode not in ("inf", "train"):
            raise SystemExit(f"--cases: mode must be inf or train in '{item}'")
        out.append((m, mode, int(seq), int(batch)))
    return out


def model_phase(run, torch, device_name, gflops, until):
    a = run.args
    cases = run.cases
    if not cases:
        run.log("[models] no cases")
        return
    dtype = getattr(torch, DTYPES[a.dtype][0])
    option = "" if a.dtype == "fp32" else a.dtype
    transformers = None
    t = time.monotonic()
    for k in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_HUB_DISABLE_TELEMETRY"):
        os.environ.setdefault(k, "1")  # configs are local: never wait on a network
    try:
        import transformers as _tf
        transformers = _tf
        try:
            transformers.logging.set_verbosity_error()
        except Exception:  # noqa: BLE001
            pass
        run.log(f"imported transformers {transformers.__version__} in {time.monotonic() - t:.1f}s")
        run.facts["transformers"] = transformers.__version__
    except Exception as e:  # noqa: BLE001
        if a.device == "cuda":
            run.fail("import transformers (whole-model labels skipped)", e)
            return
        run.log(f"transformers not importable ({type(e).__name__}); --device cpu uses a torch.nn "
                "stand-in, labels get the option '-standin'")
        option = "standin"
    stem = devmod.file_stem(device_name)
    label_dir = os.path.join(run.out, "labels", stem)
    model_dir = os.path.join(run.out, "models")
    os.makedirs(label_dir, exist_ok=True)
    os.makedirs(model_dir, exist_ok=True)
    timer = kmod.Timer(torch, a.device)
    ratios = []  # measured / estimated step time of the cases so far
    big_build_rate = 0.0  # seconds per parameter of the slowest build of a model >= 300M
    cached = (None, None, None)  # (key, model, info)
    for n, (zoo_name, mode, seq, batch) in enumerate(cases):
        what = mmod.label_stem(zoo_name, mode, seq, batch, option)
        if time.monotonic() > until - 1:
            run.log(f"[models] out of time before {what}")
            break
        try:
            with open(os.path.join(a.zoo, zoo_name + ".json")) as f:
                cfg = json.load(f)
        except (OSError, ValueError) as e:
            run.fail(f"model config {zoo_name}", e)
            continue
        try:
            maxpos = smod.model_dims(cfg)[-1] if smod.model_dims(cfg)[0] else 1 << 30
        except (TypeError, ValueError):
            maxpos = 1 << 30
        if seq > maxpos:
            run.log(f"[models] skip {what}: seq {seq} > the model's {maxpos} positions")
            continue
        if a.device == "cpu":  # a smoke test: shrink the work, keep the code path
            seq, batch = min(seq, 32), 1
            what = mmod.label_stem(zoo_name, mode, seq, batch, option)
        # The estimate is pessimistic; once cases have run it is scaled by the worst
        # measured/estimated ratio so far (never below 0.3 of it).
        slowdown = max(max(ratios), 0.3) if ratios else 1.0
        step = mmod.estimate_step_ms(cfg, mode, seq, batch, gflops) * slowdown
        if a.device == "cpu":
            step = 200.0
        warm, reps = a.model_warmups, a.model_reps
        if step > 1000:
            warm, reps = 1, 3
        key = (zoo_name, mmod.hf_class_name(cfg, mode) if transformers else "standin")
        params = mmod.params_of(cfg)
        if cached[0] == key:
            build_s = 0.0
        elif big_build_rate:
            build_s = 1 + 1.5 * big_build_rate * params
        else:
            build_s = 2 + params / 1e9 * 2
        need_s = build_s + (warm + reps) * step / 1e3
        if need_s > run.left(until):
            run.log(f"[models] skip {what}: needs ~{need_s:.0f}s, {run.left(until):.0f}s left")
            continue
        if cached[0] != key:
            cached = (None, None, None)
            mmod.free(torch, a.device)
            if a.device == "cuda":
                free_b, _ = torch.cuda.mem_get_info()
                need_b = mmod.estimate_bytes(cfg, mode, seq, batch, DTYPES[a.dtype][1])
                if need_b > 0.9 * free_b:
                    run.log(f"[models] skip {what}: needs ~{need_b / 2**30:.0f} GiB, "
                            f"{free_b / 2**30:.0f} GiB free")
                    continue
        try:
            if cached[0] != key:
                tb = time.monotonic()
                if transformers is not None:
                    model, cls_name, attn = mmod.build_hf(torch, transformers, cfg, mode,
                                                          a.device, dtype,
                                                          a.experts_implementation)
                else:
                    model, cls_name, attn = mmod.StandIn.build(torch, cfg, mode, a.device, dtype)
                timer.sync()
                build = time.monotonic() - tb
                cached = (key, model, {"class": cls_name, "attn": attn, "build_s": build})
                if params >= 3e8:
                    big_build_rate = max(big_build_rate, build / params)
                run.log(f"[models] built {zoo_name} as {cls_name} (attention: {attn}) "
                        f"in {build:.1f}s")
            model, info = cached[1], cached[2]
            vocab = int(cfg.get("vocab_size") or 1000) if transformers else mmod.StandIn.VOCAB
            tc = time.monotonic()
            fw, bw, runs = mmod.run_case(torch, model, vocab, mode, seq, batch, a.device, timer,
                                         warm, reps, until, a.empty_cache_each_run)
            if fw is None:
                run.log(f"[models] {what}: no timed run finished")
                continue
            mname = mmod.label_model_name(zoo_name)
            mpath = os.path.join(model_dir, mname + ".json")
            if not os.path.exists(mpath):
                shutil.copyfile(os.path.join(a.zoo, zoo_name + ".json"), mpath)
            lab = mmod.write_label(os.path.join(label_dir, what + ".json"), cfg, fw, bw)
            est = mmod.estimate_step_ms(cfg, mode, seq, batch, gflops)
            if a.device == "cuda" and runs:
                ratios.append((fw + bw) / est)
            run.facts["labels"].append({"label": what, "zoo_model": zoo_name,
                                        "class": info["class"], "attention": info["attn"],
                                        "experts_implementation": mmod.experts_of(model),
                                        "warmups": warm, "runs": runs, "dtype": a.dtype,
                                        "build_s": round(info["build_s"], 2),
                                        "wall_s": round(time.monotonic() - tc, 2), **lab})
            run.log(f"[models] {n + 1}/{len(cases)} {what}: e2e {fw + bw:.2f} ms "
                    f"(fw {fw:.2f}, bw {bw:.2f}; median of {runs}) "
                    f"{time.monotonic() - tc:.1f}s; {run.left(until):.0f}s left for models")
            if a.profile_labels:
                profile_label(run, torch, model, vocab, (mode, seq, batch), what, lab, step,
                              until)
        except Stop:
            raise
        except Exception as e:  # noqa: BLE001 - a failing model is skipped
            run.fail(f"model {what}", e)
            if os.environ.get("TILECAST_MEASURE_DEBUG"):
                traceback.print_exc()
            cached = (None, None, None)
            mmod.free(torch, a.device)
    cached = (None, None, None)
    mmod.free(torch, a.device)


def profile_label(run, torch, model, vocab, case, what, lab, step_ms, until):
    """One profiled step of a labelled case (--profile-labels); a failure costs the profile
    only. Profiling slows the host, so it runs only with three estimated steps of time left."""
    mode, seq, batch = case
    if run.left(until) < 3 * step_ms / 1e3 + 2:
        run.log(f"[models] {what}: no time left to profile")
        return
    tp = time.monotonic()
    try:
        trace = mmod.profile_case(torch, model, vocab, mode, seq, batch, run.args.device,
                                  pmod.profile_step, run.args.empty_cache_each_run)
        summary = pmod.summarize(trace)
        totals = pmod.write(os.path.join(run.out, "profiles"), what, summary, lab)
        fwd = totals.get("forward") or {}
        run.facts.setdefault("profiles", []).append(what)
        run.log(f"[models] {what}: profiled in {time.monotonic() - tp:.1f}s (forward: "
                f"{fwd.get('kernels', 0)} kernels, busy {fwd.get('busy_ms', 0):.2f} of span "
                f"{fwd.get('span_ms', 0):.2f} ms)")
    except Stop:
        raise
    except Exception as e:  # noqa: BLE001
        run.fail(f"profile {what}", e)


# ------------------------------------------------------------------- summary

def write_readme(run, device_name, dev_source):
    a = run.args
    stem = devmod.file_stem(device_name)
    ksub = "kernels" if a.dtype == "fp32" else "kernels-" + a.dtype
    profiles_row = ("| `profiles/<label>.csv`, `.json` | one profiled step per label: device time per "
                    "kernel, GPU busy and idle time (`--profile-labels`) |\n"
                    if a.profile_labels else "")
    text = f"""# Measurements of {device_name}

Written by `scripts/measure/measure.py` of tilecast ({run.facts.get('started', '')}).
Protocol, formats and how to read the numbers: docs/measure.md in the tilecast repository.

| path | what |
| --- | --- |
| `devices/{stem}.json` | the GPU in the dataset's device format ({dev_source}) |
| `{ksub}/<op>.csv` | kernel latencies, NeuSight kernel CSV (extra last column `Source`) |
| `models/<model>.json` | the model zoo configs the labels were measured with |
| `labels/{stem}/<model>-<inf or train>-<seq>-<batch>.json` | whole-model latencies (ms) |
| `machine.json` | versions, clocks, settings, counts, per-label details, failures |
| `log.txt` | the run's progress log |
{profiles_row}
Dtype: {a.dtype}{' (TF32 off)' if a.dtype == 'fp32' else ''}. Whole-model runs: {'the caching allocator emptied before every run (as NeuSight measured)' if a.empty_cache_each_run else 'warm caching allocator'}. Status: {run.facts.get('status')}.

Compare tilecast's forecasts with them (from the tilecast repository):

    build/cli/tilecast eval-kernels --devices {a.out}/devices {a.out}/{ksub}/*.csv
    build/cli/tilecast eval-e2e --devices {a.out}/devices --models {a.out}/models --labels {a.out}/labels
""" + ("""    python3 scripts/profile_vs_forecast.py {out}
""".format(out=a.out) if a.profile_labels else "")
    with open(os.path.join(run.out, "README.md"), "w") as f:
        f.write(text)


def main(argv=None):
    args = parse_args(argv if argv is not None else sys.argv[1:])
    run = Run(args)
    signal.signal(signal.SIGTERM, on_signal)
    if args.models.strip().lower() == "none":
        model_names = []
    elif args.models.strip():
        model_names = [m.strip() for m in args.models.split(",") if m.strip()]
    else:
        model_names = list(dict.fromkeys(c[0] for c in mmod.DEFAULT_CASES))
    run.model_names = model_names
    if args.cases:
        run.cases = parse_cases(args.cases)
    else:
        run.cases = [c for c in mmod.DEFAULT_CASES if c[0] in model_names]
        known = {c[0] for c in mmod.DEFAULT_CASES}
        for m in model_names:  # a zoo model without built-in cases: one of each mode
            if m not in known:
                run.cases += [(m, "inf", 2048, 1), (m, "train", 512, 1)]
    run.facts["started"] = time.strftime("%Y-%m-%d %H:%M:%S %z")
    s = run.facts["settings"]
    s.update({k: getattr(args, k) for k in vars(args)})
    s.update({"latency": "median of the timed calls, ms", "timing": "CUDA events per call"
              if args.device == "cuda" else "time.perf_counter per call",
              "powu_exponent": kmod.POWU_EXPONENT, "unary_scalar": kmod.SCALAR})
    run.log(f"tilecast measurement kit: budget {args.budget_s:.0f}s, out {args.out}, "
            f"device {args.device}, dtype {args.dtype}, seed {args.seed}")
    device_name, dev_source = "unknown", "unknown"
    kp = None
    try:
        torch = setup_torch(run)
        run.log(f"FP32 precision settings: {s.get('fp32_matmul')}")
        run.facts["machine"] = devmod.machine_facts(torch, args.device)
        run.facts["smi_start"] = devmod.smi_snapshot()
        device_name, dev_json, dev_source = describe_device(run, torch)
        stem = devmod.file_stem(device_name)
        os.makedirs(os.path.join(run.out, "devices"), exist_ok=True)
        if dev_json is None:
            p = os.path.join(run.out, "devices", stem + ".json.template")
            tmpl = devmod.template_json(device_name)
            near = run.facts.get("catalog_candidates") or []
            if near and args.device == "cuda":
                cat = devmod.load_catalog(args.catalog)
                c = devmod.find_catalog_entry(cat, "", gpu_id=near[0])
                props = torch.cuda.get_device_properties(0)
                tmpl = devmod.device_json(device_name, c, getattr(props, "multi_processor_count", None),
                                          getattr(props, "total_memory", None),
                                          getattr(props, "L2_cache_size", None) or None)
                tmpl["_note"] = (f"prefilled from gpu_catalog/{c['id']}.json, whose name differs: "
                                 "check every number against this GPU's datasheet")
            with open(p, "w") as f:
                json.dump(tmpl, f, indent=4)
            run.log(f"WARNING: '{device_name}' is not in gpu_catalog/: fill {p} with datasheet "
                    "numbers and rename it to .json (or rerun with --device-json FILE / "
                    "--gpu-id ID); measuring anyway")
        else:
            with open(os.path.join(run.out, "devices", stem + ".json"), "w") as f:
                json.dump(dev_json, f, indent=4)
                f.write("\n")
        dev_file = f"devices/{stem}.json" + ("" if dev_json is not None else ".template")
        run.facts["device"] = {"name": device_name, "file": dev_file,
                               "source": dev_source, "json": dev_json}
        run.log(f"device '{device_name}' ({dev_source})")
        write_readme(run, device_name, dev_source)
        run.write_json("machine.json", run.facts)
        gflops, bw = numbers_for_estimates(dev_json)

        names_on = not args.no_kernel_names
        names_reserve = min(45.0, args.names_share * args.budget_s) if names_on else 0.0
        share = min(max(args.kernels_share, 0.0), 1.0)
        models_on = bool(run.cases) and share < 1.0
        kernels_on = share > 0.0 or not models_on
        work_end = run.end - names_reserve
        k1_end = min(T0 + share * args.budget_s, work_end) if models_on else work_end

        def phase(key, fn):
            """Runs one phase; an error ends that phase only (logged), never the run."""
            t = time.monotonic()
            try:
                return fn()
            except (Stop, SystemExit):
                raise
            except Exception as e:  # noqa: BLE001
                run.fail(f"phase {key}", e)
                run.logf.write(traceback.format_exc())
                return None
            finally:
                run.facts["phases"][key + "_s"] = round(time.monotonic() - t, 1)

        if kernels_on:
            kp = phase("kernel_plan", lambda: KernelPhase(run, torch, device_name, gflops, bw))
        if kp is not None:
            phase("kernels", lambda: kp.measure(k1_end, "kernels"))
        if models_on:
            phase("models", lambda: model_phase(run, torch, device_name, gflops, work_end))
        if kp is not None and run.left(work_end) > 5:
            phase("kernels_more", lambda: kp.measure(work_end, "kernels, continued"))
        if kp is not None and names_on and kp.sink.count():
            run.facts["kernel_names"] = phase("names", lambda: kp.name_pass(run.end))
        run.facts["status"] = "complete"
    except Stop as e:
        run.facts["status"] = f"stopped by {e}"
        run.log(f"stopped ({e}); everything measured so far is written")
    except SystemExit as e:
        run.facts["status"] = f"error: {e}"
        run.log(f"ERROR: {e}")
        raise
    except Exception as e:  # noqa: BLE001
        run.facts["status"] = f"error: {type(e).__name__}: {e}"
        run.log("ERROR: " + traceback.format_exc())
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        if kp is not None:
            kp.sink.close()
            run.facts["kernels"] = {op: len(r) for op, r in kp.sink.rows.items()}
            run.facts["kernels"]["total"] = kp.sink.count()
        run.facts["smi_end"] = devmod.smi_snapshot()
        run.facts["wall_s"] = round(run.elapsed(), 1)
        run.write_json("machine.json", run.facts)
        write_readme(run, device_name, dev_source)
        n_k = run.facts["kernels"].get("total", 0) if run.facts["kernels"] else 0
        run.log(f"finished in {run.elapsed():.0f}s: {n_k} kernels, {len(run.facts['labels'])} "
                f"labels, {len(run.facts['failures'])} failures; status {run.facts['status']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
