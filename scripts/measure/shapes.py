"""Kernel shapes for the measurement kit: seeded random shapes over the training
data's ranges, and shapes taken from the model zoo's transformer configs.

Pure Python (no torch), so it can be checked anywhere.

Shape conventions are the NeuSight kernel CSV's: GEMMs are (B, M, N, K), a batch
B of an MxN by NxK product (linear has B=1, M rows, N input features, K output
features); vector ops are (B, H), B rows of H elements.
"""

import json
import math
import os
import random

GEMM_OPS = ("bmm", "linear")
VECTOR_OPS = ("add", "addu", "mul", "mulu", "div", "divu", "pow", "powu",
              "relu", "gelu", "tanh", "softmax", "ln")
ALL_OPS = GEMM_OPS + VECTOR_OPS

# Inclusive ranges of each dimension in the training CSVs
# (nvidia/kernels/train/<op>/*.csv, five GPUs), rounded outwards to powers of two
# where the data reaches them. Shapes are drawn log-uniformly within them.
RANGES = {
    "bmm": {"B": (1, 1024), "M": (8, 1024), "N": (1, 1024), "K": (2, 1024)},
    "linear": {"B": (1, 1), "M": (4, 8192), "N": (2, 65536), "K": (2, 65536)},
    "ln": {"B": (4, 16384), "H": (256, 4096)},
}
for _op in VECTOR_OPS:
    RANGES.setdefault(_op, {"B": (1, 16384), "H": (1, 4096)})
# Largest products in the training data: M*N*K of linear ~2.9e12 and B*M*N*K of
# bmm ~6.3e11; B*H of vector ops ~6.3e7 (implied by the ranges).
MAX_GEMM_MNK = {"linear": 2.9e12, "bmm": 6.4e11}

# Relative share of the random shapes per op: the training data has ~10x more
# bmm and ~4x more linear rows than rows of any one vector op.
WEIGHTS = {"bmm": 4, "linear": 3}


def dims_names(op):
    return ("B", "M", "N", "K") if op in GEMM_OPS else ("B", "H")


def loguniform_int(rng, lo, hi):
    if lo >= hi:
        return lo
    v = math.exp(rng.uniform(math.log(lo), math.log(hi + 1)))
    return max(lo, min(hi, int(v)))


def flops(op, d):
    if op in GEMM_OPS:
        return 2.0 * d[0] * d[1] * d[2] * d[3]
    per = {"gelu": 8, "tanh": 6, "pow": 2, "powu": 2, "softmax": 5, "ln": 8}.get(op, 1)
    return per * float(d[0]) * d[1]


def bytes_moved(op, d, elem_bytes=4):
    if op in GEMM_OPS:
        b, m, n, k = d
        return elem_bytes * b * (m * n + n * k + m * k)
    reads = 2 if op in ("add", "mul", "div", "pow") else 1
    return elem_bytes * (reads + 1) * float(d[0]) * d[1]


def estimate_ms(op, d, peak_gflops, bw_gbps, elem_bytes=4):
    """A pessimistic single-run time: half the peak FLOP rate, 60% of the bandwidth."""
    t_f = flops(op, d) / (0.5 * peak_gflops * 1e9)
    t_b = bytes_moved(op, d, elem_bytes) / (0.6 * bw_gbps * 1e9)
    return 1e3 * max(t_f, t_b) + 0.01


def fits(op, d, max_ms, peak_gflops, bw_gbps, max_bytes, elem_bytes=4):
    if any(x < 1 or x >= 2 ** 31 for x in d):
        return False
    if op == "linear" and d[0] != 1:
        return False
    if bytes_moved(op, d, elem_bytes) > max_bytes:
        return False
    return estimate_ms(op, d, peak_gflops, bw_gbps, elem_bytes) <= max_ms


def random_shape(rng, op, limits):
    """One shape of `op` inside the training ranges and inside `limits`
    (dict: max_ms, peak_gflops, bw_gbps, max_bytes, elem_bytes); None after 200 misses."""
    r = RANGES[op]
    for _ in range(200):
        d = tuple(loguniform_int(rng, *r[n]) for n in dims_names(op))
        if op in MAX_GEMM_MNK and d[0] * d[1] * d[2] * d[3] > MAX_GEMM_MNK[op]:
            continue
        if fits(op, d, **limits):
            return d
    return None


# ---------------------------------------------------------------- model shapes

def _get(cfg, *names, default=None):
    for n in names:
        if cfg.get(n) is not None:
            return cfg[n]
    return default


def model_dims(cfg):
    """(family, hidden, heads, kv_heads, ffn, vocab, max_positions) of a HF config."""
    mt = cfg.get("model_type", "")
    h = int(_get(cfg, "n_embd", "hidden_size", "d_model"))
    nh = int(_get(cfg, "n_head", "num_attention_heads", "num_heads"))
    kvh = int(_get(cfg, "num_key_value_heads", default=nh))
    ffn = int(_get(cfg, "n_inner", "intermediate_size", "ffn_dim", "d_ff", default=4 * h))
    vocab = int(_get(cfg, "vocab_size", default=32000))
    maxpos = int(_get(cfg, "n_positions", "max_position_embeddings", default=2048))
    fam = {"gpt2": "gpt2", "bert": "bert", "opt": "opt", "llama": "llama",
           "mistral": "llama", "qwen2": "llama"}.get(mt, "")
    return fam, h, nh, kvh, ffn, vocab, maxpos


def model_kernels(cfg, batch, seq, training):
    """The distinct (op, dims) of one transformer layer plus the head, as PyTorch
    eager launches them (forward, and for training the GEMM gradients and the
    vector ops' backward classes). An approximation meant to cover the shapes
    real models use, not a replacement for tilecast's op graph."""
    fam, h, nh, kvh, ffn, vocab, _ = model_dims(cfg)
    if not fam:
        return []
    d = h // nh
    R = batch * seq
    rows_att = batch * nh * seq
    lin = []  # (rows, in, out)
    vec = []
    bmm = [(batch * nh, seq, d, seq), (batch * nh, seq, seq, d)]
    if fam == "gpt2":
        lin += [(R, h, 3 * h), (R, h, h), (R, h, ffn), (R, ffn, h), (R, h, vocab)]
        vec += [("ln", R, h), ("add", R, h), ("divu", rows_att, seq), ("softmax", rows_att, seq)]
        # gelu_new = 0.5*x*(1+tanh(sqrt(2/pi)*(x+0.044715*x^3)))
        vec += [("powu", R, ffn), ("mulu", R, ffn), ("add", R, ffn), ("tanh", R, ffn),
                ("addu", R, ffn), ("mul", R, ffn)]
    elif fam == "bert":
        lin += [(R, h, h), (R, h, ffn), (R, ffn, h)]
        lin += [(R, h, vocab)] if training else [(batch, h, h), (batch, h, 2)]
        vec += [("ln", R, h), ("add", R, h), ("divu", rows_att, seq), ("add", rows_att, seq),
                ("softmax", rows_att, seq), ("gelu", R, ffn), ("tanh", batch, h)]
    elif fam == "opt":
        lin += [(R, h, h), (R, h, ffn), (R, ffn, h), (R, h, vocab)]
        vec += [("ln", R, h), ("add", R, h), ("mulu", R, h), ("add", rows_att, seq),
                ("softmax", rows_att, seq), ("relu", R, ffn)]
    elif fam == "llama":
        lin += [(R, h, h), (R, h, kvh * d), (R, h, ffn), (R, ffn, h), (R, h, vocab)]
        vec += [("mul", R, h), ("add", R, h), ("mulu", rows_att, seq), ("add", rows_att, seq),
                ("softmax", rows_att, seq), ("mul", R, ffn), ("powu", R, h)]
    out = set()
    for (m, n, k) in lin:
        out.add(("linear", (1, m, n, k)))
        if training:
            out.add(("linear", (1, m, k, n)))  # input gradient
            out.add(("linear", (1, k, m, n)))  # weight gradient
    for (b, m, n, k) in bmm:
        out.add(("bmm", (b, m, n, k)))
        if training:
            out.add(("bmm", (b, m, k, n)))
            out.add(("bmm", (b, n, m, k)))
    for (op, b, hh) in vec:
        out.add((op, (b, hh)))
        if training and op == "softmax":
            out.add(("mul", (b, hh)))
    return sorted(out)


# Workloads (batch, seq) per family for model-derived kernel shapes: the label
# cases of the NeuSight dataset and a few smaller ones.
WORKLOADS = {
    "gpt2": [(4, 1024, True), (8, 1024, False), (1, 1024, True), (2, 512, False)],
    "bert": [(8, 512, True), (16, 512, False), (2, 512, True), (32, 128, False)],
    "opt": [(1, 2048, True), (2, 2048, False), (4, 512, True)],
    "llama": [(1, 2048, False), (1, 512, True), (4, 512, False)],
}


def load_zoo_config(zoo_dir, name):
    path = os.path.join(zoo_dir, name + ".json")
    with open(path) as f:
        return json.load(f)


def model_shapes(zoo_dir, models, limits, log=None):
    """[(op, dims, source)] for the zoo models named, deduplicated, in a fixed order."""
    seen = set()
    out = []
    for name in models:
        try:
            cfg = load_zoo_config(zoo_dir, name)
        except (OSError, ValueError) as e:
            if log:
                log(f"model shapes: cannot read {name}: {e}")
            continue
        try:
            fam, *_rest = model_dims(cfg)
        except (TypeError, ValueError):
            continue  # not a transformer config this generator knows
        maxpos = _rest[-1]
        for (b, s, tr) in WORKLOADS.get(fam, []):
            if s > maxpos:
                continue
            for op, d in model_kernels(cfg, b, s, tr):
                if (op, d) in seen or not fits(op, d, **limits):
                    continue
                seen.add((op, d))
                out.append((op, d, f"model:{name}:b{b}:s{s}"))
    return out


def plan(ops, n_random, seed, limits, model_list=(), model_share=0.25):
    """The measurement order: [(op, dims, source)]. Random shapes are spread over
    the ops by WEIGHTS and interleaved (so a run cut short is still balanced);
    model-derived shapes are mixed in at about `model_share` of the list."""
    rng = random.Random(seed)
    ops = [o for o in ALL_OPS if o in ops]
    if not ops:
        return []
    slots = []
    for o in ops:
        slots += [o] * WEIGHTS.get(o, 1)
    random_list = []
    seen = set()
    misses = 0
    while len(random_list) < n_random and misses < 50 * len(ops) + 100:
        o = slots[len(random_list) % len(slots)] if misses == 0 else rng.choice(slots)
        d = random_shape(rng, o, limits)
        if d is None or (o, d) in seen:
            misses += 1
            continue
        misses = 0
        seen.add((o, d))
        random_list.append((o, d, "random"))
    # Shuffle within rounds of len(slots) so every op keeps its share at every prefix.
    rounds = [random_list[i:i + len(slots)] for i in range(0, len(random_list), len(slots))]
    for r in rounds:
        rng.shuffle(r)
    random_list = [x for r in rounds for x in r]
    mshapes = [x for x in model_list if x[0] in ops and (x[0], x[1]) not in seen]
    rng.shuffle(mshapes)
    if not mshapes:
        return random_list
    out = []
    every = max(1, int(round((1 - model_share) / max(model_share, 1e-6))))
    mi = 0
    for i, x in enumerate(random_list):
        out.append(x)
        if (i + 1) % every == 0 and mi < len(mshapes):
            out.append(mshapes[mi])
            mi += 1
    out += mshapes[mi:]
    return out
