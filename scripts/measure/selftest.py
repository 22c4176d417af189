#!/usr/bin/env python3
"""Checks of the kit's torch-free parts (shapes, trace parsing, device JSON,
label names, step profiles). Runs anywhere: python3 scripts/measure/selftest.py
[--tilecast PATH] (with the CLI, the profile is also compared with its forecast by
scripts/profile_vs_forecast.py)."""

import json
import os
import random
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import device as devmod  # noqa: E402
import elementwise_operands as eomod  # noqa: E402
import kernels as kmod  # noqa: E402
import models as mmod  # noqa: E402
import shapes as smod  # noqa: E402
import step_profile as pmod  # noqa: E402

sys.path.insert(0, os.path.join(REPO, "scripts"))
import profile_vs_forecast as pvf  # noqa: E402
import serving_kernels as skmod  # noqa: E402

LIMITS = {"max_ms": 25, "peak_gflops": 67000, "bw_gbps": 4800, "max_bytes": 40e9,
          "elem_bytes": 4}


def check_shapes():
    zoo = os.path.join(REPO, "model_zoo")
    ms = smod.model_shapes(zoo, ["gpt2", "bert-base", "opt-tiny", "llama2-7b"], LIMITS)
    a = smod.plan(smod.ALL_OPS, 900, 7, LIMITS, ms)
    b = smod.plan(smod.ALL_OPS, 900, 7, LIMITS, ms)
    assert a == b, "the plan depends on the seed only"
    assert a != smod.plan(smod.ALL_OPS, 900, 8, LIMITS, ms)
    seen = set()
    for op, d, src in a:
        assert (op, d) not in seen, (op, d)
        seen.add((op, d))
        assert len(d) == (4 if op in smod.GEMM_OPS else 2)
        assert all(1 <= x < 2 ** 31 for x in d)
        assert smod.estimate_ms(op, d, 67000, 4800) <= 25
        if op == "linear":
            assert d[0] == 1
        if src == "random":
            for n, x in zip(smod.dims_names(op), d):
                lo, hi = smod.RANGES[op][n]
                assert lo <= x <= hi, (op, n, x)
    ops = {op for op, _, _ in a}
    assert ops == set(smod.ALL_OPS), ops
    # Every op is represented early on (interleaving), so a short run stays balanced.
    assert {op for op, _, _ in a[:60]} == set(smod.ALL_OPS)
    assert any(src.startswith("model:gpt2:") for _, _, src in a)
    g = smod.model_kernels(smod.load_zoo_config(zoo, "gpt2"), 4, 1024, True)
    assert ("linear", (1, 4096, 768, 2304)) in g  # c_attn
    assert ("linear", (1, 2304, 4096, 768)) in g  # its weight gradient
    assert ("bmm", (48, 1024, 64, 1024)) in g
    assert ("softmax", (48 * 1024, 1024)) in g
    r = random.Random(1)
    xs = [smod.loguniform_int(r, 1, 1024) for _ in range(4000)]
    assert min(xs) == 1 and 900 <= max(xs) <= 1024
    assert 20 < sorted(xs)[2000] < 50  # log-uniform: median near sqrt(1024)


def check_trace():
    # A kineto-style trace: two annotated calls; call 0 launches two kernels
    # (a GEMM and a reduction), call 1 one kernel found only via correlation.
    ev = [
        {"ph": "X", "cat": "user_annotation", "name": "tcm#0", "ts": 100, "dur": 50, "tid": 1},
        {"ph": "X", "cat": "user_annotation", "name": "tcm#1", "ts": 200, "dur": 50, "tid": 1},
        {"ph": "X", "cat": "gpu_user_annotation", "name": "tcm#0", "ts": 120, "dur": 40},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 110, "dur": 5,
         "args": {"correlation": 11}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 115, "dur": 5,
         "args": {"correlation": 12}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 210, "dur": 5,
         "args": {"correlation": 13}},
        {"ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32",
         "ts": 125, "dur": 20, "args": {"correlation": 11, "grid": [8, 4, 1],
                                        "block": [256, 1, 1], "warps per SM": 1.9375,
                                        "blocks per SM": 0.242424}},
        {"ph": "X", "cat": "kernel", "name": "splitKreduce_kernel", "ts": 146, "dur": 3,
         "args": {"correlation": 12, "grid": [1, 1, 1], "block": [128, 1, 1]}},
        {"ph": "X", "cat": "Kernel", "name": "ampere_sgemm_64x32_sliced1x4_nn", "ts": 400,
         "dur": 9, "args": {"correlation": 13, "grid": [2, 2, 3], "block": [128, 1, 1]}},
        {"ph": "i", "cat": "kernel", "name": "ignored instant event", "ts": 130},
    ]
    got = kmod.assign_kernels({"traceEvents": ev}, 2, gemm=True)
    assert got[0]["name"].startswith("sm90_xmma_gemm"), got
    assert got[1]["name"] == "ampere_sgemm_64x32_sliced1x4_nn", got
    row = kmod.make_row("bmm", (3, 64, 32, 128), 0.0123, "NVIDIA H200", "random")
    kmod.apply_names(row, got[1])
    assert (row["Grid x"], row["Grid y"], row["Grid z"]) == ("2", "2", "3")
    assert row["Block x"] == "128" and row["Warps per SM"] == ""
    kmod.apply_names(row, got[0])
    assert row["Warps per SM"] == "1.9375"
    # The CPU fallback: operators inside the host-side range of their annotation.
    cpu = [
        {"ph": "X", "cat": "user_annotation", "name": "tcm#0", "ts": 0, "dur": 10, "tid": 5},
        {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "ts": 1, "dur": 8, "tid": 5},
        {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "ts": 2, "dur": 6, "tid": 5},
        {"ph": "X", "cat": "cpu_op", "name": "aten::uniform_", "ts": 20, "dur": 6, "tid": 5},
    ]
    got = kmod.assign_kernels(cpu, 1, gemm=True)
    assert got[0]["name"] == "aten::addmm", got  # the GEMM, not its wrapper


def check_device():
    cat = devmod.load_catalog(os.path.join(REPO, "gpu_catalog"))
    h200 = devmod.find_catalog_entry(cat, "NVIDIA H200")
    assert h200 and h200["id"] == "h200"
    d = devmod.device_json("NVIDIA H200", h200, 132, 150 * 10 ** 9, 50 * 2 ** 20)
    assert d["Device"] == "NVIDIA H200" and d["Num_Sm"] == 132 and d["SingleFLOPs"] == 67000
    assert d["Mem_Bw"] == 4800 and d["L2Cache"] == 50 and d["Core_Per_SM"] == 128
    assert set(d) == {"Device", "Vendor", "Dev_Mem", "Mem_Bw", "Num_Sm", "Core_Per_SM", "Freq",
                      "SingleFLOPs", "L2Cache"}
    half = devmod.device_json("NVIDIA H200", h200, 66)
    assert half["SingleFLOPs"] == 33500
    mi = devmod.device_json("AMD Instinct MI300X", devmod.find_catalog_entry(cat, "mi300x"))
    assert "SingleFLOPsMM" in mi and "SingleFLOPs" not in mi
    assert devmod.find_catalog_entry(cat, "NVIDIA H200 NVL") is None
    assert devmod.close_catalog_entries(cat, "NVIDIA H200 NVL")[0]["id"] == "h200"
    assert devmod.close_catalog_entries(cat, "Some Unknown Accelerator") == []
    assert devmod.find_catalog_entry(cat, "whatever", gpu_id="h100-sxm")["id"] == "h100-sxm"
    assert devmod.file_stem("NVIDIA A100 80GB PCIe") == "NVIDIA_A100_80GB_PCIe"


def check_labels():
    assert mmod.label_stem("opt-1.3b", "train", 2048, 1) == "opt_1_3b-train-2048-1"
    assert mmod.label_stem("gpt2", "inf", 1024, 4, "bf16") == "gpt2-inf-1024-4-bf16"
    for m, _, _, _ in mmod.DEFAULT_CASES:
        assert os.path.exists(os.path.join(REPO, "model_zoo", m + ".json")), m
    assert mmod.hf_class_name({"model_type": "bert"}, "train") == "BertForPreTraining"
    assert mmod.hf_class_name({"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"]},
                              "inf") == "GPT2LMHeadModel"


def check_device_session():
    """The prepared device session's cases are zoo models in the kit's case syntax."""
    import re
    with open(os.path.join(HERE, "device_session.sh")) as f:
        text = f.read()
    cases = [c for c in ",".join(re.findall(r'CASES\+?="([^"]+)"', text)).split(",") if c]
    assert len(cases) >= 6, cases
    for c in cases:
        model, mode, seq, batch = c.split(":")
        assert mode in ("inf", "train") and int(seq) > 0 and int(batch) > 0, c
        assert os.path.exists(os.path.join(REPO, "model_zoo", model + ".json")), c


def check_moe_session():
    """The prepared MoE session's cases and the operand probe's are zoo models in their syntax;
    the probe's layer shrinking keeps a sparse step and its byte count skips broadcast axes."""
    import re
    with open(os.path.join(HERE, "moe_session.sh")) as f:
        text = f.read()
    found = re.findall(r'(?:PROFILED|LARGE|EAGER)\+?="([^"]+)"', text)
    cases = [c for c in ",".join(found).split(",") if c]
    assert len(cases) >= 8, cases
    for c in cases:
        model, mode, seq, batch = c.split(":")
        assert mode in ("inf", "train") and int(seq) > 0 and int(batch) > 0, c
        assert os.path.exists(os.path.join(REPO, "model_zoo", model + ".json")), c
    for c in eomod.DEFAULT_CASES.split(","):
        model, seq, batch = c.split(":")
        assert int(seq) > 0 and int(batch) > 0, c
        assert os.path.exists(os.path.join(REPO, "model_zoo", model + ".json")), c
    with open(os.path.join(REPO, "model_zoo", "switch-xl-4.json")) as f:
        small = eomod.shrink(json.load(f), 2)
    assert small["num_layers"] == 2 and small["num_decoder_layers"] == 2, small
    assert small["num_sparse_encoder_layers"] == 1 and small["num_sparse_decoder_layers"] == 1

    class T:  # shape and strides of a (1, 32, S, S) bias broadcast over a batch of 4
        shape, _stride = (4, 32, 8, 8), (0, 64, 8, 1)

        def stride(self):
            return self._stride
    assert eomod.distinct_elements(T()) == 32 * 8 * 8


def check_serving_kernels():
    """The serving kernels' operand copies fill the L2s asked for within their caps, the calls
    cycle through them in turn, and their CSV header is the kit's, so eval-kernels reads it."""
    l2 = 60 << 20
    assert skmod.copies_for(25 << 20, l2) == 10  # ceil(4 x 60 / 25)
    assert skmod.copies_for(1 << 30, l2) == 1  # larger than the L2s: one copy
    assert skmod.copies_for(1, l2) == skmod.MAX_COPIES
    assert skmod.copies_for(200 << 20, 1 << 40) * (200 << 20) <= skmod.COPY_BYTES
    seen = []
    fn = skmod.cycling([lambda i=i: seen.append(i) for i in range(3)])
    for _ in range(7):
        fn()
    assert seen == [0, 1, 2, 0, 1, 2, 0], seen
    for c in ("OPName", "Latency", "Timing", "Device", "B", "M", "N", "K", "Kernel Name",
              "Warps per SM", "Blocks per SM"):
        assert c in skmod.COLUMNS, c  # apply_names writes the last three
    assert all(n % 16 == 0 for n in skmod.TOKENS)  # FP8 GEMMs need multiples of 16
    assert all(n % 16 == 0 and k % 16 == 0 for n, k in skmod.LAYERS)
    # a rewrite that fails (a field the header lacks) leaves the last good file, not an empty one
    tmp = tempfile.mkdtemp()
    try:
        # the probes' tables (write_csv): the header, then each row in its columns
        skmod.write_csv(os.path.join(tmp, "t.csv"), ["a", "b"], [{"a": 1, "b": 2}])
        with open(os.path.join(tmp, "t.csv")) as f:
            assert f.read().splitlines() == ["a,b", "1,2"]
        sink = skmod.Sink(tmp)
        sink.add("bf16", {"OPName": "linear", "Latency": "0.1"})
        sink.flush_all()
        sink.add("bf16", {"OPName": "linear", "no such column": "1"})
        try:
            sink.flush_all()
            raise AssertionError("a row with a field the header lacks was written")
        except ValueError:
            pass
        with open(sink.paths["bf16"]) as f:
            assert len(f.read().splitlines()) == 2  # the header and the good row
    finally:
        shutil.rmtree(tmp)


def profile_trace():
    """A training step: forward kernels on the GPU side of their range (two overlapping
    streams, a 30 us gap), backward kernels found through their launch's correlation."""
    X = "X"
    return {"traceEvents": [
        {"ph": X, "cat": "user_annotation", "name": "tilecast-phase#forward", "ts": 0, "dur": 90},
        {"ph": X, "cat": "gpu_user_annotation", "name": "tilecast-phase#forward", "ts": 10,
         "dur": 200},
        {"ph": X, "cat": "user_annotation", "name": "tilecast-phase#backward", "ts": 300,
         "dur": 50},
        {"ph": X, "cat": "kernel", "name": "ampere_sgemm_128x64_nn", "ts": 10, "dur": 100},
        {"ph": X, "cat": "kernel", "name": "ampere_sgemm_128x64_nn", "ts": 60, "dur": 60},
        {"ph": X, "cat": "kernel", "name": "cunn_SoftMaxForward<4, float>", "ts": 150, "dur": 20},
        {"ph": X, "cat": "kernel", "name": "void at::native::vectorized_elementwise_kernel<4, "
         "at::native::AddFunctor<float>>", "ts": 170, "dur": 40},
        {"ph": X, "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 310, "dur": 5,
         "args": {"correlation": 7}},
        {"ph": X, "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 320, "dur": 5,
         "args": {"correlation": 8}},
        {"ph": X, "cat": "kernel", "name": "at::native::vectorized_layer_norm_kernel<float>",
         "ts": 400, "dur": 30, "args": {"correlation": 7}},
        {"ph": X, "cat": "kernel", "name": "CatArrayBatchedCopy<float>", "ts": 500, "dur": 10,
         "args": {"correlation": 8}},
        {"ph": X, "cat": "kernel", "name": "outside any phase", "ts": 2000, "dur": 10},
    ]}


def check_profile(tilecast=None):
    s = pmod.summarize(profile_trace())
    fw, bw = s["forward"], s["backward"]
    assert fw["kernels"] == 4 and bw["kernels"] == 2, s
    assert abs(fw["device_ms"] - 0.22) < 1e-12  # 100 + 60 + 20 + 40 us
    assert abs(fw["busy_ms"] - 0.17) < 1e-12  # [10, 120) and [150, 210): overlap counted once
    assert abs(fw["span_ms"] - 0.2) < 1e-12 and abs(fw["host_ms"] - 0.09) < 1e-12
    assert abs(bw["busy_ms"] - 0.04) < 1e-12 and abs(bw["span_ms"] - 0.11) < 1e-12
    assert fw["by_kernel"]["ampere_sgemm_128x64_nn"] == [2, 0.16]
    assert pvf.kernel_class("ampere_sgemm_128x64_nn") == "matmul"
    assert pvf.kernel_class("Cijk_Ailk_Bljk_SB_MT64x64x16_MI32x32x2x1") == "matmul"
    assert pvf.kernel_class("cunn_SoftMaxForward<4, float>") == "softmax"
    assert pvf.kernel_class("at::native::vectorized_layer_norm_kernel<float>") == "norm"
    assert pvf.kernel_class("CatArrayBatchedCopy<float>") == "memory"
    assert pvf.kernel_class("vectorized_elementwise_kernel<4, AddFunctor<float>>") == \
        "elementwise"
    assert pvf.parse_label("gpt2-train-32-1-standin") == ("gpt2", "training", 32, 1)
    sample = os.path.join(REPO, "tests", "data", "measure_sample")
    tmp = tempfile.mkdtemp(prefix="tilecast-profile-")
    try:
        for sub in ("devices", "models"):
            shutil.copytree(os.path.join(sample, sub), os.path.join(tmp, sub))
        label = "gpt2-train-32-1"
        totals = pmod.write(os.path.join(tmp, "profiles"), label, s,
                            {"fw_latency": 0.25, "bwall_latency": 0.12})
        assert totals["forward"]["kernels"] == 4 and "by_kernel" not in totals["forward"]
        with open(os.path.join(tmp, "profiles", label + ".json")) as f:
            assert json.load(f) == totals
        got = pvf.read_profile(os.path.join(tmp, "profiles", label + ".csv"))
        assert abs(got["forward"]["matmul"] - 0.16) < 1e-9
        assert abs(got["backward"]["memory"] - 0.01) < 1e-9
        if tilecast:
            rows = pvf.compare(tmp, tilecast)
            assert len(rows) == 1 and rows[0]["label"] == label
            r = rows[0]
            assert abs(r["classes"]["softmax"]["measured_device_ms"] - 0.02) < 1e-9
            assert all(v["forecast_ms"] > 0 for v in r["classes"].values()), r
            ph = r["phases"]
            assert abs(ph["forward"]["idle_ms"] - 0.03) < 1e-9, ph
            assert ph["forward"]["measured_ms"] == 0.25 and ph["backward"]["forecast_ms"] > 0
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    cli = sys.argv[sys.argv.index("--tilecast") + 1] if "--tilecast" in sys.argv else None
    for f in (check_shapes, check_trace, check_device, check_labels,
              check_device_session, check_moe_session, check_serving_kernels):
        f()
        print("ok", f.__name__)
    check_profile(cli)
    print("ok check_profile" + (" (compared with the forecast)" if cli else ""))
