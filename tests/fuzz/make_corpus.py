#!/usr/bin/env python3
"""Writes the raw harness's seed corpus (tests/fuzz/corpus/raw): for each API function (the
first byte, in the order of api_calls.hpp) requests built from the model zoo, the GPU catalog,
the systems and the share link's parameters (web/src/state.ts: batch, seq, prompt, out, tp,
dp, ptp, pp, mb, zero, rc, sched, sys, prec, engine), at ordinary values and at the edges of
their validators, plus the reproducers of issue 33. Deterministic; rerun after the catalogs
change. Kept small (a sample of files, compact JSON): libFuzzer grows the rest."""
import hashlib
import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "tests/fuzz/corpus/raw"
KERNEL, MODEL, SERVING, COLLECTIVE, PLAN, V_GPU, V_MODEL, V_SYSTEM = range(8)


def load(folder, names):
    return [json.loads((ROOT / folder / f"{n}.json").read_text()) for n in names]


def main():
    seeds = []
    add = lambda fn, req: seeds.append((fn, req if isinstance(req, str) else json.dumps(req, separators=(",", ":"))))
    gpus = ["h100-sxm", "a100-40gb-pcie", "t4", "mi250-gcd", "l4"]
    models = ["gpt2", "llama3-8b", "mixtral-8x7b", "bert-base", "gemma2-9b", "qwen1.5-moe-a2.7b", "switch-xl-4", "phi3-mini-4k",
              "gptj-6b", "falcon-7b", "gemma3-27b"]
    for g in gpus[:3]:
        add(KERNEL, {"gpu": g, "op": "linear", "dims": [1, 4096, 4096, 4096]})
        add(KERNEL, {"gpu": g, "op": "softmax", "dims": [4096, 4096], "predictor": "roofline"})
        add(KERNEL, {"gpu": g, "op": "linear", "dims": [1, 1024, 1024, 1024], "precision": "bf16"})
    for m in models:
        add(MODEL, {"gpu": "h100-sxm", "model": m, "batch": 2, "seq": 512, "mode": "inference"})
        add(MODEL, {"gpu": "a100-40gb-pcie", "model": m, "batch": 1, "seq": 128, "mode": "training", "precision": "bf16"})
        add(SERVING, {"gpu": "h100-sxm", "model": m, "prompt": 512, "output": 128, "batch": 8})
    add(MODEL, {"gpu": "h100-sxm", "model": "llama3-8b", "batch": 4, "seq": 1024, "mode": "decode", "context": 4096})
    add(MODEL, {"gpu": "h100-sxm", "model": "gpt2", "batch": 8, "seq": 256, "mode": "inference", "engine": "compiled"})
    # the share link's multi-GPU parameters (dp, ptp, pp, mb, zero, rc, sched, sys)
    add(MODEL, {"gpu": "a100-40gb-sxm", "model": "gpt2-large", "batch": 8, "seq": 1024, "mode": "training", "gpus": 8,
                "tp": 2, "pp": 2, "dp": 2, "microbatches": 4, "zero": 1, "recompute": "selective", "schedule": "gpipe",
                "system": "dgx-a100"})
    add(MODEL, {"gpu": "h100-sxm", "model": "llama2-7b", "batch": 32, "seq": 2048, "mode": "training",
                "precision": "bf16", "dp": 4, "tp": 2, "zero": 3, "bucket_mb": 25, "system": "dgx-h100"})
    add(SERVING, {"gpu": "h100-sxm", "model": "llama3-70b", "prompt": 2048, "output": 256, "batch": 4, "tp": 4,
                  "precision": "fp16", "engine": "eager", "predictor": "roofline"})
    for sys in ["dgx-a100", "dgx-h100", "mi300x-8x"]:
        add(COLLECTIVE, {"system": sys, "collective": "all_reduce", "bytes": 1 << 26, "gpus": 8})
        add(COLLECTIVE, {"system": sys, "collective": "all_to_all", "bytes": 1 << 20, "gpus": 16,
                         "gpus_per_node": 8, "algorithm": "ring"})
        add(PLAN, {"system": sys, "model": "gpt2", "global_batch": 16, "seq": 256, "gpus": 4, "max_microbatches": 4, "top": 3})
    # the edges of the validators, and issue 33's reproducers
    add(MODEL, {"gpu": "h100-sxm", "model": "gpt2", "batch": 1, "seq": 1, "tp": 65536, "pp": 65536, "gpus": 1})
    add(MODEL, {"gpu": "h100-sxm", "model": "gpt2", "batch": 65536, "seq": 1, "mode": "training", "pp": 12, "microbatches": 65536})
    add(MODEL, {"gpu": "h100-sxm", "model": "gpt2", "batch": 2147483647, "mode": "training", "dp": 2, "seq": 1})
    add(SERVING, {"gpu": "h100-sxm", "model": "gpt2", "prompt": 1, "output": 2147483648})
    add(KERNEL, {"gpu": "h100-sxm", "op": "add", "dims": [10, 10], "predictor": 0})
    gpt2 = load("model_zoo", ["gpt2"])[0]
    add(PLAN, {"system": "dgx-a100", "model": dict(gpt2, n_layer=100000), "global_batch": 8, "seq": 128})
    for spec in load("gpu_catalog", gpus[:4]):
        add(V_GPU, spec)
        add(KERNEL, {"gpu": spec, "op": "bmm", "dims": [8, 512, 64, 512]})
    for cfg in load("model_zoo", models):
        add(V_MODEL, cfg)
    # a vision-language config: its language model nested under text_config (Gemma 3's)
    text = {k: v for k, v in load("model_zoo", ["gemma3-27b"])[0].items() if not k.startswith("tilecast_")}
    vlm = {"model_type": "gemma3", "text_config": text, "vision_config": {"model_type": "siglip_vision_model"}}
    add(V_MODEL, vlm)
    add(MODEL, {"gpu": "h100-sxm", "model": vlm, "batch": 1, "seq": 256, "mode": "decode", "context": 4096})
    for spec in load("gpu_catalog/systems", ["dgx-a100", "mi250-4x", "a100-pcie-nvlink-pairs-4x"]):
        add(V_SYSTEM, spec)
        add(COLLECTIVE, {"system": spec, "collective": "send_recv", "bytes": 4096, "gpus": 2})
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.iterdir():
        old.unlink()
    for fn, text in seeds:
        data = bytes([fn]) + text.encode()
        (OUT / hashlib.sha1(data).hexdigest()).write_bytes(data)
    print(f"{len(seeds)} seeds, {sum(len(t) + 1 for _, t in seeds)} bytes in {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
