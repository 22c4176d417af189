#!/usr/bin/env python3
"""Which element-wise calls of a model's forward run off PyTorch's contiguous path, with what
operands, and at what rate: the question the H200's Switch Transformer profile left open (its
position bias plus mask ran 96 times at about 0.75 TB/s where GPT-2's broadcast mask add ran
at 2.6 and a contiguous add at 4.4; data/measured/h200/session-2026-12-04/README.md).

    python3 scripts/measure/elementwise_operands.py --out OUT [--cases switch-xl-4:2048:1,...]
        [--layers 2] [--budget-s 60]

For each case (zoo model, sequence, batch) the model is built with `--layers` blocks per stack
(random weights, FP32, eager attention, as the kit builds it) and one inference forward runs
under a dispatch mode that times every element-wise call whose output has at least
`--min-elements` elements (CUDA events around the call). Each distinct call is then replayed
alone from a CUDA graph on operands of the same shapes, strides and dtypes, and again on
contiguous operands of the same shapes (a broadcast operand stays broadcast: only its layout
changes). Writes OUT/elementwise_operands.csv: case, op, output shape and strides, each operand's
shape, strides and dtype, calls seen, the in-model time, the replayed time, the contiguous time,
the bytes the operands' distinct elements and the output occupy, and GB/s of those bytes.
"""

import time

T0 = time.monotonic()

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import models as mmod  # noqa: E402
import serving_kernels as skmod  # noqa: E402

COLUMNS = ["case", "op", "out_shape", "out_stride", "operands", "calls", "model_ms", "replay_ms",
           "contiguous_ms", "bytes", "replay_gbps", "contiguous_gbps"]
# The element-wise calls of attention masks and biases, residuals and activations.
OPS = ("add.Tensor", "sub.Tensor", "mul.Tensor", "div.Tensor", "where.self", "masked_fill.Scalar",
       "masked_fill.Tensor", "maximum.default", "minimum.default", "add_.Tensor", "mul_.Tensor",
       "masked_fill_.Scalar")
# The Switch's two H200 inference shapes, and the mask adds of GPT-2 and BERT beside them.
DEFAULT_CASES = "switch-xl-4:2048:1,switch-xl-4:512:4,gpt2-large:1024:4,bert-base:512:8"
LAYER_KEYS = ("num_layers", "num_decoder_layers", "num_hidden_layers", "n_layer")


def describe(t):
    return f"{'x'.join(map(str, t.shape))}:{'/'.join(map(str, t.stride()))}:{str(t.dtype)[6:]}"


def shrink(cfg, layers):
    """The config with at most `layers` blocks per stack (sparse-step models keep one of each)."""
    c = dict(cfg)
    for k in LAYER_KEYS:
        if isinstance(c.get(k), int):
            c[k] = min(c[k], layers)
    for k in ("num_sparse_encoder_layers", "num_sparse_decoder_layers"):
        if isinstance(c.get(k), int):
            c[k] = min(c[k], max(1, layers // 2))
    return c


def recorder(torch, min_elements, seen):
    from torch.utils._python_dispatch import TorchDispatchMode

    class Record(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            name = str(func.overloadpacket.__name__) + "." + func._overloadname
            if name not in OPS:
                return func(*args, **kwargs)
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            out = func(*args, **kwargs)
            e.record()
            if isinstance(out, torch.Tensor) and out.numel() >= min_elements:
                e.synchronize()
                tensors = [a for a in args if isinstance(a, torch.Tensor)]
                key = (name, describe(out), tuple(describe(t) for t in tensors))
                entry = seen.setdefault(key, {"calls": 0, "ms": 0.0, "func": func, "args": args,
                                              "kwargs": kwargs,
                                              "out_bytes": out.numel() * out.element_size()})
                entry["calls"] += 1
                entry["ms"] += s.elapsed_time(e)
            return out

    return Record()


def filled(torch, shape, like_t):
    base = torch.empty(shape, dtype=like_t.dtype, device=like_t.device)
    return base.uniform_(0.5, 1.5) if like_t.dtype.is_floating_point else base.zero_()


def distinct_elements(t):
    """The elements t's memory holds (a broadcast dimension, stride 0, holds one)."""
    return math.prod(s for s, st in zip(t.shape, t.stride()) if st != 0)


def like(torch, t, contiguous):
    """A tensor of t's shape, strides (or a contiguous layout) and dtype, broadcast kept."""
    if t.dim() == 0:
        return filled(torch, (), t)
    if not contiguous:
        span = max((s - 1) * st for s, st in zip(t.shape, t.stride())) + 1 if t.numel() else 0
        return filled(torch, (span,), t).as_strided(t.shape, t.stride())
    # contiguous storage for the dimensions that are not broadcast, the same expansion
    return filled(torch, [s if st != 0 else 1 for s, st in zip(t.shape, t.stride())],
                  t).expand(t.shape)


def replay(torch, entry, contiguous):
    args = [like(torch, a, contiguous) if isinstance(a, torch.Tensor) else a
            for a in entry["args"]]
    func, kwargs = entry["func"], entry["kwargs"]

    def fn():
        return func(*args, **kwargs)

    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    fn()
    s.record()
    fn()
    e.record()
    e.synchronize()
    ms, _ = skmod.kernel_ms(torch, fn, max(s.elapsed_time(e), 1e-3))
    return ms


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True)
    p.add_argument("--cases", default=DEFAULT_CASES)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--min-elements", type=int, default=1 << 20)
    p.add_argument("--budget-s", type=float, default=60)
    a = p.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    skmod.LOG.append(open(os.path.join(a.out, "log.txt"), "a"))
    import torch
    import transformers
    skmod.log(f"torch {torch.__version__}, transformers {transformers.__version__}, "
              f"{torch.cuda.get_device_name(0)}")
    rows = []
    for item in a.cases.split(","):
        if time.monotonic() - T0 > a.budget_s:
            skmod.log("element-wise operands: budget reached")
            break
        name, seq, batch = item.split(":")
        seq, batch = int(seq), int(batch)
        try:
            with open(os.path.join(REPO, "model_zoo", name + ".json")) as f:
                cfg = shrink(json.load(f), a.layers)
            model, _, _ = mmod.build_hf(torch, transformers, cfg, "inf", "cuda", torch.float32)
            model.eval()
            inputs = mmod.make_inputs(torch, model, int(cfg.get("vocab_size") or 1000), seq,
                                      batch, "cuda")
            with torch.no_grad():
                model(**inputs)  # warm-up
                torch.cuda.synchronize()
                seen = {}
                with recorder(torch, a.min_elements, seen):
                    model(**inputs)
                torch.cuda.synchronize()
                for (op, out, operands), entry in seen.items():
                    replay_ms = replay(torch, entry, False)
                    contiguous_ms = replay(torch, entry, True)
                    tensors = [t for t in entry["args"] if isinstance(t, torch.Tensor)]
                    moved = entry["out_bytes"] + sum(distinct_elements(t) * t.element_size()
                                                     for t in tensors)
                    rows.append({"case": item, "op": op, "out_shape": out.split(":")[0],
                                 "out_stride": out.split(":")[1], "operands": " ".join(operands),
                                 "calls": entry["calls"],
                                 "model_ms": entry["ms"] / entry["calls"],
                                 "replay_ms": replay_ms, "contiguous_ms": contiguous_ms,
                                 "bytes": moved, "replay_gbps": moved / replay_ms / 1e6,
                                 "contiguous_gbps": moved / contiguous_ms / 1e6})
                    skmod.log(f"{item} {op} {out} <- {' '.join(operands)}: x{entry['calls']}, "
                              f"in model {entry['ms'] / entry['calls'] * 1e3:.1f} us, replayed "
                              f"{replay_ms * 1e3:.1f} us, contiguous {contiguous_ms * 1e3:.1f} us")
            del model, inputs, seen
            mmod.free(torch, "cuda")
        except Exception as e:  # noqa: BLE001 - one case's failure is logged, not fatal
            skmod.log(f"{item}: failed: {type(e).__name__}: {str(e)[:300]}")
            mmod.free(torch, "cuda")
    skmod.write_csv(os.path.join(a.out, "elementwise_operands.csv"), COLUMNS, rows)


if __name__ == "__main__":
    main(sys.argv[1:])
