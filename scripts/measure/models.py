"""Whole-model labels: one training step (forward + backward, gradient
accumulation included) or one inference forward (no_grad) of a model zoo config
built with Hugging Face transformers (random weights, nothing downloaded), timed
with CUDA events. Written in the dataset's label format."""

import contextlib
import gc
import json
import os
import statistics
import time

# (zoo name, mode, seq, batch), cheapest first within the default list. The cases
# follow the NeuSight dataset's labels (same sequence lengths and batches) where
# the model is in the dataset.
DEFAULT_CASES = [
    ("gpt2", "inf", 1024, 4), ("gpt2", "train", 1024, 4),
    ("bert-base", "inf", 512, 8), ("bert-base", "train", 512, 8),
    ("opt-tiny", "inf", 2048, 2), ("opt-tiny", "train", 2048, 2),
    ("gpt2-medium", "inf", 1024, 4), ("gpt2-medium", "train", 1024, 4),
    ("bert-large", "inf", 512, 8), ("bert-large", "inf", 512, 16),
    ("bert-large", "train", 512, 2), ("bert-large", "train", 512, 8),
    ("gpt2-large", "inf", 1024, 4), ("gpt2-large", "inf", 1024, 8),
    ("gpt2-large", "train", 1024, 1), ("gpt2-large", "train", 1024, 4),
    ("opt-1.3b", "inf", 2048, 2), ("opt-1.3b", "train", 2048, 1),
    ("gpt3-xl", "inf", 2048, 2), ("gpt3-xl", "train", 2048, 1),
    ("gpt3-2.7b", "inf", 2048, 2), ("gpt3-2.7b", "train", 2048, 1),
    ("llama2-7b", "inf", 2048, 1), ("llama2-7b", "train", 512, 1),
    ("gpt3-6.7b", "inf", 2048, 1),
]


def label_model_name(zoo_name):
    """Label file names split on '-', so 'bert-base' is written 'bert_base'."""
    return zoo_name.replace("-", "_").replace(".", "_")


def label_stem(zoo_name, mode, seq, batch, option=""):
    s = f"{label_model_name(zoo_name)}-{mode}-{seq}-{batch}"
    return s + ("-" + option if option else "")


def params_of(cfg):
    """Approximate parameter count (for the time and memory estimates)."""
    h = cfg.get("n_embd") or cfg.get("hidden_size") or 768
    L = cfg.get("n_layer") or cfg.get("num_hidden_layers") or 12
    f = cfg.get("n_inner") or cfg.get("intermediate_size") or cfg.get("ffn_dim") or 4 * h
    V = cfg.get("vocab_size") or 32000
    mult = 3 if cfg.get("model_type") in ("llama", "mistral", "qwen2") else 2
    return L * (4 * h * h + mult * h * f) + V * h


def num_layers(cfg):
    return int(cfg.get("n_layer") or cfg.get("num_hidden_layers") or cfg.get("num_layers") or 0)


def estimate_step_ms(cfg, mode, seq, batch, gflops):
    """A pessimistic step time: 2 (inference) or 6 (training) FLOPs per parameter
    and token plus attention, at a quarter of the FP32 peak."""
    p = params_of(cfg)
    h = cfg.get("n_embd") or cfg.get("hidden_size") or 768
    L = num_layers(cfg) or 12
    tokens = seq * batch
    att = 4 * L * batch * seq * seq * h
    f = (2 if mode == "inf" else 6) * p * tokens + (1 if mode == "inf" else 3) * att
    return 1e3 * f / (0.25 * gflops * 1e9) + 5


def estimate_bytes(cfg, mode, seq, batch, elem_bytes=4):
    """Weights (and for training gradients) plus a generous activation estimate."""
    p = params_of(cfg)
    h = cfg.get("n_embd") or cfg.get("hidden_size") or 768
    nh = cfg.get("n_head") or cfg.get("num_attention_heads") or 12
    L = num_layers(cfg) or 12
    V = cfg.get("vocab_size") or 32000
    # Per token and layer in FP32 eager training: ~20 hidden-sized tensors kept for the
    # backward, and the attention scores, probabilities, dropout mask and output
    # (3.5 elements per score). Plus logits, their gradient and the grad seed.
    act = batch * seq * (L * (20 * h + 3.5 * nh * seq) + 3 * V)
    if mode == "inf":
        act = batch * seq * (20 * h + 3.5 * nh * seq + 3 * V)
    return elem_bytes * ((2 if mode == "train" else 1) * p + act)


def hf_class_name(cfg, mode):
    """The transformers class of the traced workloads: BERT inference runs a
    sequence classifier, BERT training the pre-training heads; other models their
    `architectures` entry (causal LMs)."""
    if cfg.get("model_type") == "bert":
        return "BertForSequenceClassification" if mode == "inf" else "BertForPreTraining"
    archs = cfg.get("architectures") or []
    return archs[0] if archs else "AutoModelForCausalLM"


def hf_config(transformers, cfg):
    d = {k: v for k, v in cfg.items() if not k.startswith("tilecast_") and k != "_name_or_path"}
    d.pop("torch_dtype", None)
    d.pop("dtype", None)
    d["use_cache"] = False
    mt = d.pop("model_type")
    try:
        conf = transformers.AutoConfig.for_model(mt, **d)
    except (AttributeError, TypeError):
        conf = transformers.CONFIG_MAPPING[mt](**d)
    for attr in ("_attn_implementation", "attn_implementation"):
        try:
            setattr(conf, attr, "eager")
        except Exception:  # noqa: BLE001 - older/newer transformers spell it differently
            pass
    return conf


def build_hf(torch, transformers, cfg, mode, device, dtype, experts=None):
    """Builds the model on the device with random weights in `dtype`, eager attention, and the
    experts of a mixture run by `experts` (transformers 5's experts_implementation: "eager",
    "grouped_mm", "batched_mm"; None: the library's default)."""
    conf = hf_config(transformers, cfg)
    name = hf_class_name(cfg, mode)
    cls = getattr(transformers, name, None) or transformers.AutoModelForCausalLM
    kwargs_tries = [{"attn_implementation": "eager", "dtype": dtype},
                    {"attn_implementation": "eager", "torch_dtype": dtype},
                    {"attn_implementation": "eager"}, {}]
    if experts:  # asked for: never dropped by a fallback (a label must say what ran)
        kwargs_tries = [dict(kw, experts_implementation=experts) for kw in kwargs_tries[:3]]
    # Build directly on the device (torch >= 2 makes torch.device a context manager),
    # so a 7B model is initialised by the GPU in seconds, not by the CPU in minutes.
    dev = torch.device(device)
    ctx = dev if hasattr(dev, "__enter__") else contextlib.nullcontext()
    model, last = None, None
    for kw in kwargs_tries:
        try:
            with ctx:
                if hasattr(cls, "from_config"):  # the Auto* classes
                    model = cls.from_config(conf, **kw)
                elif hasattr(cls, "_from_config"):  # concrete PreTrainedModel classes
                    model = cls._from_config(conf, **kw)
                else:
                    model = cls(conf)
            break
        except TypeError as e:  # a keyword this transformers version does not take
            last = e
        except Exception as e:  # noqa: BLE001 - e.g. a library that refuses the device context
            last = e
            break
    if model is not None and any(p.is_meta for p in model.parameters()):
        last, model = RuntimeError("the model came out on the meta device"), None
    if model is None:
        if params_of(cfg) > 2e9:
            raise last
        model = cls(conf)  # plain construction on the CPU, then moved: slow but sure
    model = model.to(device=device, dtype=dtype)
    attn = getattr(model.config, "_attn_implementation", None)
    if attn != "eager" and hasattr(model, "set_attn_implementation"):
        try:
            model.set_attn_implementation("eager")
            attn = getattr(model.config, "_attn_implementation", None)
        except Exception:  # noqa: BLE001 - recorded with the label
            pass
    return model, name, attn


def experts_of(model):
    """The experts implementation a transformers 5 model runs (None: no such setting)."""
    return getattr(getattr(model, "config", None), "_experts_implementation", None)


class StandIn:
    """A transformer-shaped torch.nn model for --device cpu smoke runs where
    transformers is not installed; its labels are written with the option
    suffix 'standin' so no evaluator mistakes them for measurements."""

    VOCAB = 2048

    @staticmethod
    def build(torch, cfg, mode, device, dtype):
        nn = torch.nn
        # Shrunk: a smoke test of the code path, not of the model.
        nh = min(cfg.get("n_head") or cfg.get("num_attention_heads") or 4, 4)
        h, f, L, V = 32 * nh, 128 * nh, min(num_layers(cfg) or 1, 2), StandIn.VOCAB

        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.emb = nn.Embedding(V, h)
                self.layers = nn.ModuleList(
                    [nn.TransformerEncoderLayer(h, nh, f, batch_first=True) for _ in range(L)])
                self.head = nn.Linear(h, V, bias=False)

            def forward(self, input_ids):
                x = self.emb(input_ids)
                for layer in self.layers:
                    x = layer(x)
                return {"logits": self.head(x)}

        return M().to(device=device, dtype=dtype), "StandIn", "torch.nn"


def output_tensors(out):
    """The floating tensors of a model output that carry gradients."""
    if hasattr(out, "to_tuple"):
        vals = out.to_tuple()
    elif isinstance(out, dict):
        vals = tuple(out.values())
    elif isinstance(out, (tuple, list)):
        vals = tuple(out)
    else:
        vals = (out,)
    return [v for v in vals if hasattr(v, "requires_grad") and v.is_floating_point()]


def make_inputs(torch, model, vocab, seq, batch, device):
    """Random token ids (batch x seq). Encoder-decoder models (Switch Transformers) also
    take the decoder's tokens: the same length as the encoder's, as tilecast's graph assumes."""
    ids = torch.randint(0, vocab, (batch, seq), device=device)
    inputs = {"input_ids": ids}
    if getattr(getattr(model, "config", None), "is_encoder_decoder", False):
        inputs["decoder_input_ids"] = ids
    return inputs


def profile_case(torch, model, vocab, mode, seq, batch, device, profiler, cold_cache=False):
    """One step of the case under `profiler` (step_profile.profile_step), its forward and
    backward marked as run_case times them (cold_cache: after emptying the caching allocator,
    as its timed runs were). Returns the profiler's trace."""
    inputs = make_inputs(torch, model, vocab, seq, batch, device)
    if cold_cache:
        empty_cache(torch, device)

    def step(mark):
        if mode == "inf":
            model.eval()
            with torch.no_grad(), mark("forward"):
                model(**inputs)
            return
        model.train()
        with mark("forward"):
            out = model(**inputs)
        outs = output_tensors(out)
        grads = [torch.ones_like(o) for o in outs]
        with mark("backward"):  # into the existing .grad tensors, as the timed steps do
            torch.autograd.backward(outs, grads)

    return profiler(torch, step, device)


def empty_cache(torch, device):
    """NeuSight's harness before every timed run: collect garbage and hand the caching
    allocator's free blocks back to the driver, so the run allocates its tensors anew."""
    gc.collect()
    if device == "cuda":
        torch.cuda.empty_cache()


def run_case(torch, model, vocab, mode, seq, batch, device, timer, warmups, reps, deadline,
             cold_cache=False):
    """(fw_ms, bw_ms, runs) medians over `reps` runs after `warmups` runs.
    Training keeps the .grad tensors from step to step, so every backward
    accumulates into existing gradients, as a step with gradient accumulation does.
    cold_cache: empty the caching allocator before every run (--empty-cache-each-run)."""
    inputs = make_inputs(torch, model, vocab, seq, batch, device)
    fw, bw = [], []
    if mode == "inf":
        model.eval()
        with torch.no_grad():
            for i in range(warmups + reps):
                if time.monotonic() > deadline:
                    break
                if cold_cache:
                    empty_cache(torch, device)
                t = timer.once(lambda: model(**inputs))
                if i >= warmups:
                    fw.append(t)
        return (statistics.median(fw) if fw else None), 0.0, len(fw)
    model.train()
    grads = None
    gpu = timer.gpu
    if gpu:
        ev = [torch.cuda.Event(enable_timing=True) for _ in range(3)]
    for i in range(warmups + reps):
        if time.monotonic() > deadline:
            break
        if cold_cache:
            empty_cache(torch, device)
        timer.sync()
        if gpu:
            ev[0].record()
        else:
            t0 = time.perf_counter()
        out = model(**inputs)
        if gpu:
            ev[1].record()
        else:
            t1 = time.perf_counter()
        outs = output_tensors(out)
        if grads is None:
            grads = [torch.ones_like(o) for o in outs]
            t_grad = True
        else:
            t_grad = False
        torch.autograd.backward(outs, grads)
        if gpu:
            ev[2].record()
            ev[2].synchronize()
            f, b = ev[0].elapsed_time(ev[1]), ev[1].elapsed_time(ev[2])
        else:
            t2 = time.perf_counter()
            f, b = (t1 - t0) * 1e3, (t2 - t1) * 1e3
        del out, outs
        if i >= warmups and not t_grad:
            fw.append(f)
            bw.append(b)
    if not fw:
        return None, None, 0
    return statistics.median(fw), statistics.median(bw), len(fw)


def write_label(path, cfg, fw_ms, bw_ms):
    lab = {"num_layer": num_layers(cfg), "e2e_latency": fw_ms + bw_ms, "fw_latency": fw_ms,
           "bwall_latency": bw_ms}
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(lab, f, indent=4)
        f.write("\n")
    os.replace(tmp, path)
    return lab


def free(torch, device):
    gc.collect()
    if device == "cuda":
        torch.cuda.empty_cache()
