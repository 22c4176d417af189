// The Megatron engine's kernels for one micro-batch on one tensor-parallel rank (docs/megatron.md):
// a transformer layer as Megatron-Core with TransformerEngine (or Megatron-LM's fused kernels)
// runs it, with T = micro-batch x seq tokens, T/tp of them where sequence parallelism shards the
// norm / dropout regions:
//   forward   norm (fused, + residual) | [SP all-gather] | QKV GEMM | RoPE | attention core |
//             output GEMM | all-reduce or [SP reduce-scatter] | bias-dropout-add | norm |
//             [SP all-gather] | fc1 GEMM | bias+GeLU or SwiGLU | fc2 GEMM | all-reduce or
//             reduce-scatter | bias-dropout-add
//   backward  the reverse: each linear's input-gradient (dgrad) and weight-gradient (wgrad) GEMM;
//             the input gradient's all-reduce (SP: reduce-scatter) of a column-parallel linear
//             runs under its wgrad GEMM, SP's re-gather of the linear's input under its dgrad
//             GEMM (Megatron's asynchronous tensor-parallel communication); the all-gather of
//             a row-parallel output's gradient (SP) blocks.
// The attention core is FlashAttention (one forward, one backward kernel) or Megatron's fused
// path: QK^T batched GEMM, one fused scale-mask-softmax, dropout, AV batched GEMM. Fused
// element-wise kernels and the fused softmax are memory-bound and carry their DRAM bytes; GEMMs and
// batched GEMMs are forecast by the kernel models (the tensor-core GEMM model in the half type).
// FP8 (TransformerEngine): every linear's forward, dgrad and wgrad GEMM at the FP8 peak, each
// forward GEMM preceded by a cast-transpose of its BF16 input into FP8 (and its transpose, for the
// wgrad) and each backward pair by one of its output gradient; attention, norms, activations and
// the logits GEMM stay BF16.
#include <algorithm>
#include <cmath>
#include <string>

#include "common/checked.hpp"
#include "graph/engines/megatron_layer.hpp"
#include "model/architectures.hpp"
#include "tilecast/enum_names.hpp"
#include "tilecast/error.hpp"

namespace tilecast::detail {
namespace {

std::int64_t checked(std::int64_t v, const char* what) {
  if (v < 1 || v > kMaxKernelDim)
    throw Error(std::string("megatron engine: ") + what + " = " + std::to_string(v) +
                " is outside 1.." + std::to_string(kMaxKernelDim) +
                " (a smaller micro-batch, sequence or model)");
  return v;
}

// a x b for a kernel dimension: 64-bit, checked (common/checked.hpp), then within kMaxKernelDim.
std::int64_t dim_mul(std::int64_t a, std::int64_t b, const char* what) {
  return checked(checked_mul(a, b, std::string("megatron engine: ") + what), what);
}

struct Emitter {
  std::vector<MegatronItem>& out;
  DataType gemm_t, act_t;

  MegatronItem& push(std::string name, OpKind kind) {
    MegatronItem it;
    it.name = std::move(name);
    it.kind = kind;
    out.push_back(std::move(it));
    return out.back();
  }
  // A linear's GEMM in the GEMM type. FP8: a forward GEMM's input, and a dgrad's output gradient
  // (`quantize` columns), cast from BF16 into FP8 and its transpose first (read 2 bytes, write 2
  // an element: TransformerEngine's cast-transpose, which also takes the amax).
  void linear(std::string name, std::int64_t rows, std::int64_t in, std::int64_t outf,
              bool wgrad = false, std::int64_t quantize = 0, double repeat = 1) {
    if (gemm_t != act_t && quantize > 0)
      memory(
          "fp8 cast-transpose (" + name + ")",
          repeat * double(rows) * double(quantize) * (dtype_bytes(act_t) + 2 * dtype_bytes(gemm_t)),
          OpKind::elementwise);
    const std::int64_t dims[4] = {1, checked(rows, "GEMM rows"), checked(in, "GEMM inner"),
                                  checked(outf, "GEMM columns")};
    MegatronItem& it = push(std::move(name), OpKind::gemm);
    it.kernel = make_kernel(Op::linear, dims, 4, gemm_t);
    it.wgrad = wgrad;
    it.repeat = repeat;
  }
  void bmm(std::string name, std::int64_t b, std::int64_t m, std::int64_t n, std::int64_t k) {
    const std::int64_t dims[4] = {checked(b, "batched GEMM batch"), checked(m, "batched GEMM rows"),
                                  checked(n, "batched GEMM inner"),
                                  checked(k, "batched GEMM columns")};
    MegatronItem& it = push(std::move(name), OpKind::attention_bmm);
    it.kernel = make_kernel(Op::bmm, dims, 4, act_t);
    it.attention_core = true;
  }
  // Megatron's fused scale-mask-softmax (and its backward): memory-bound, reading the scores
  // (backward: the output and its gradient) and writing one tensor, in the half type
  void softmax(std::string name, std::int64_t rows, std::int64_t cols, int tensors) {
    memory(std::move(name),
           double(checked(rows, "softmax rows")) * double(cols) * tensors * dtype_bytes(act_t),
           OpKind::softmax, true);
  }
  void memory(std::string name, double bytes, OpKind kind, bool core = false) {
    if (!(bytes > 0)) return;
    MegatronItem& it = push(std::move(name), kind);
    it.mem_bytes = bytes;
    it.attention_core = core;
  }
  void flash(std::string name, double flops, double bytes, bool backward) {
    MegatronItem& it = push(std::move(name), OpKind::attention_bmm);
    it.flash_flops = flops;
    it.flash_bytes = bytes;
    it.flash_backward = backward;
    it.attention_core = true;
  }
  void comm(std::string name, Collective c, double bytes, bool overlapped = false,
            MegatronGroup group = MegatronGroup::tp, double repeat = 1) {
    if (!(bytes > 0) || !(repeat > 0)) return;
    MegatronItem it;
    it.is_comm = true;
    it.name = std::move(name);
    it.collective = c;
    it.comm_bytes = bytes;
    it.overlapped = overlapped;
    it.group = group;
    it.repeat = repeat;
    out.push_back(std::move(it));
  }
};

DataType act_type(DataType t) { return activation_dtype(t); }

// Tokens of one micro-batch on this rank: micro-batch x seq / cp.
std::int64_t tokens(const MegatronDims& d) {
  return checked(d.micro_batch * (d.seq / std::max(1, d.cp)), "micro-batch x seq / cp tokens");
}

// What every pass's sizes start from: the activations' type and bytes per element, the tokens of
// one micro-batch on this rank (T) and those a sequence-parallel region holds (Tn, T / tp).
struct PassSizes {
  DataType act;
  double eb;
  std::int64_t T, Tn;
};

PassSizes pass_sizes(const MegatronDims& d) {
  const DataType act = act_type(d.dtype);
  const std::int64_t T = tokens(d);
  return {act, dtype_bytes(act), T, d.sequence_parallel ? ceil_div(T, d.tp) : T};
}

// A mixture-of-experts MLP as Megatron-Core's all-to-all token dispatcher runs it, forward into
// `f`, backward (in backward order) into `g`; the experts' parameters into p. Tn tokens reach the
// router on this rank (T / tp with sequence parallelism); each is routed to top_k experts.
//   forward   router GEMM | top-k softmax (FP32) | permute | [all-to-all over ep] |
//             [all-gather over tp] | per local expert: fc1, SwiGLU/GeLU, fc2 (grouped GEMM,
//             E/ep launches of tokens x top_k x ep / E rows) | [reduce-scatter over tp] |
//             [all-to-all over ep] | unpermute and weighted sum | shared expert (qwen2_moe)
//   backward  the reverse, each expert GEMM's dgrad and wgrad.
// Without sequence parallelism (tp > 1, ep = 1) every tp rank routes all T tokens and the
// experts' outputs are all-reduced over tp like the dense MLP's. Balanced routing is assumed.
void moe_mlp(MegatronPass& p, Emitter& f, Emitter& g, const MegatronShape& m, const MegatronDims& d,
             std::int64_t Tn, double eb) {
  const std::int64_t tp = d.tp, ep = d.ep, h = m.hidden, E = m.experts, k = m.top_k;
  const bool sp = d.sequence_parallel && tp > 1;
  const std::int64_t local = std::max<std::int64_t>(1, E / ep);
  const std::int64_t ffn = ceil_div(m.expert_ffn, tp), fc1 = m.gated_mlp ? 2 * ffn : ffn;
  const double routed = double(Tn) * double(k);                // token copies leaving this rank
  const double rows_total = routed * (sp ? double(tp) : 1.0);  // expert GEMM rows on the rank
  const std::int64_t rows = std::max<std::int64_t>(
      1, std::int64_t(std::llround(rows_total / double(local))));  // per local expert
  p.expert_params = double(local) * (double(h) * double(fc1) + double(ffn) * double(h));
  p.params += p.expert_params + double(h) * double(E);  // experts, router (replicated)
  const std::int64_t shared = m.shared_ffn > 0 ? ceil_div(m.shared_ffn, tp) : 0;
  if (shared > 0) p.params += 3.0 * double(h) * double(shared) + double(h);
  if (d.dtype != act_type(d.dtype))  // FP8: the experts' (and shared expert's) GEMM weights too
    p.fp8_params += p.expert_params + (shared > 0 ? 3.0 * double(h) * double(shared) : 0.0);
  const std::int64_t T = sp ? Tn * tp : Tn;  // tokens of the shared expert's GEMMs
  const double tok_bytes = routed * double(h) * eb;

  f.linear("router", Tn, h, E);
  f.memory("router top-k softmax (FP32)", double(Tn) * double(E) * 4 * 3, OpKind::softmax);
  f.memory("permute tokens", 2 * tok_bytes, OpKind::memory);
  if (ep > 1)
    f.comm("all-to-all dispatch (ep)", Collective::kAllToAll, tok_bytes, false, MegatronGroup::ep);
  if (sp) f.comm("all-gather (tp, routed tokens)", Collective::kAllGather, tok_bytes * tp);
  f.linear("expert fc1", rows, h, fc1, false, h, double(local));
  f.memory(m.gated_mlp ? "expert swiglu" : "expert gelu",
           rows_total * double(ffn) * eb * (m.gated_mlp ? 3 : 2), OpKind::elementwise);
  f.linear("expert fc2", rows, ffn, h, false, ffn, double(local));
  if (sp) f.comm("reduce-scatter (tp, expert outputs)", Collective::kReduceScatter, tok_bytes * tp);
  if (ep > 1)
    f.comm("all-to-all combine (ep)", Collective::kAllToAll, tok_bytes, false, MegatronGroup::ep);
  f.memory("unpermute and weighted sum", 3 * tok_bytes, OpKind::memory);
  if (shared > 0) {
    if (sp) f.comm("all-gather (sp, shared expert)", Collective::kAllGather, double(T) * h * eb);
    f.linear("shared expert fc1", T, h, 2 * shared, false, h);
    f.memory("shared expert swiglu", double(T) * double(shared) * eb * 3, OpKind::elementwise);
    f.linear("shared expert fc2", T, shared, h, false, shared);
    if (sp)
      f.comm("reduce-scatter (sp, shared expert)", Collective::kReduceScatter, double(T) * h * eb);
  }
  if (tp > 1 && !sp) f.comm("all-reduce (tp)", Collective::kAllReduce, double(T) * double(h) * eb);

  if (tp > 1 && !sp)
    g.comm("all-reduce (tp, input gradient)", Collective::kAllReduce, double(T) * h * eb, true);
  if (shared > 0) {
    if (sp)
      g.comm("all-gather (sp, shared expert gradient)", Collective::kAllGather, double(T) * h * eb);
    g.linear("shared expert fc2 dgrad", T, h, shared, false, h);
    g.linear("shared expert fc2 wgrad", h, T, shared, true);
    g.memory("shared expert swiglu backward", double(T) * double(shared) * eb * 5,
             OpKind::elementwise);
    g.linear("shared expert fc1 dgrad", T, 2 * shared, h, false, 2 * shared);
    if (sp)
      g.comm("reduce-scatter (sp, shared expert input gradient)", Collective::kReduceScatter,
             double(T) * h * eb, true);
    g.linear("shared expert fc1 wgrad", 2 * shared, T, h, true);
  }
  g.memory("unpermute backward", 3 * tok_bytes, OpKind::memory);
  if (ep > 1)
    g.comm("all-to-all (ep, combine gradient)", Collective::kAllToAll, tok_bytes, false,
           MegatronGroup::ep);
  if (sp) g.comm("all-gather (tp, output gradient)", Collective::kAllGather, tok_bytes * tp);
  g.linear("expert fc2 dgrad", rows, h, ffn, false, h, double(local));
  g.linear("expert fc2 wgrad", h, rows, ffn, true, 0, double(local));
  g.memory(m.gated_mlp ? "expert swiglu backward" : "expert gelu backward",
           rows_total * double(ffn) * eb * (m.gated_mlp ? 5 : 3), OpKind::elementwise);
  g.linear("expert fc1 dgrad", rows, fc1, h, false, fc1, double(local));
  g.linear("expert fc1 wgrad", fc1, rows, h, true, 0, double(local));
  if (sp) g.comm("reduce-scatter (tp, input gradient)", Collective::kReduceScatter, tok_bytes * tp);
  if (ep > 1)
    g.comm("all-to-all (ep, dispatch gradient)", Collective::kAllToAll, tok_bytes, false,
           MegatronGroup::ep);
  g.memory("permute backward", 2 * tok_bytes, OpKind::memory);
  g.memory("router backward (FP32)", double(Tn) * double(E) * 4 * 3, OpKind::softmax);
  g.linear("router dgrad", Tn, E, h);
  g.linear("router wgrad", E, Tn, h, true);
}

}  // namespace

std::int64_t megatron_vocab_share(const MegatronShape& m, int tp) {
  // Megatron pads the vocabulary to a multiple of --make-vocab-size-divisible-by (default 128)
  // times the tensor-parallel size (megatron/training/tokenizer/tokenizer.py,
  // _vocab_size_with_padding), so each GPU's share is a multiple of 128
  constexpr std::int64_t kMultiple = 128;
  return ceil_div(m.vocab, kMultiple * tp) * kMultiple;
}

MegatronShape megatron_shape(const ModelConfig& model) {
  const ArchitectureTraits& t = traits(model);
  if (t.stack == Stack::encoder_decoder)
    throw Error("megatron engine: " + model.name +
                " is an encoder-decoder; the engine models one stack of identical layers (" +
                architecture_names(Stack::decoder_only) + ", " +
                architecture_names(Stack::encoder) + ")");
  if (t.parallel_residual)
    throw Error("megatron engine: " + model.name + " (" + std::string(t.model_type) +
                ") runs attention and the MLP in parallel, a layer Megatron-Core's "
                "transformer layer does not run");
  if (t.latent_attention)
    throw Error("megatron engine: " + model.name + " (" + std::string(t.model_type) +
                ") has multi-head latent attention, which the engine's layer does not model "
                "(query, key and value projections of full width)");
  MegatronShape s;
  s.hidden = model.hidden_size;
  s.heads = model.num_heads;
  s.kv_heads = model.num_kv_heads > 0 ? model.num_kv_heads : model.num_heads;
  s.head_dim = model.head_dim > 0 ? model.head_dim : model.hidden_size / model.num_heads;
  s.ffn = model.intermediate_size;
  s.vocab = model.vocab_size;
  s.layers = model.num_layers;
  s.gated_mlp = t.ffn == Ffn::gated;  // SwiGLU / GeGLU: gate and up in one fc1
  s.rms_norm = t.norm == Norm::rms || t.norm == Norm::rms_gemma;
  s.rotary = t.positions == Positions::rotary;
  s.learned_positions = t.positions == Positions::learned && model.max_positions > 0;
  s.max_positions = model.max_positions;
  s.bias = model.attention_bias || model.mlp_bias;
  s.attention_dropout = model.attention_dropout > 0;
  s.hidden_dropout = model.hidden_dropout > 0;
  s.causal = t.stack == Stack::decoder_only;
  s.tied_embeddings = model.tie_word_embeddings;
  if (t.routing != Routing::none || model.num_experts > 0) {
    s.experts = model.num_experts;
    s.top_k = std::max<std::int64_t>(1, model.experts_per_token);
    s.expert_ffn = model.expert_intermediate_size > 0 ? model.expert_intermediate_size
                                                      : model.intermediate_size;
    s.shared_ffn = model.shared_expert_intermediate_size;
    std::int64_t moe = 0;
    for (std::int64_t i = 0; i < model.num_layers; ++i) moe += is_moe_layer(model, i) ? 1 : 0;
    s.moe_fraction = model.num_layers > 0 ? double(moe) / double(model.num_layers) : 0;
    if (s.experts < 1 || s.top_k > s.experts || s.expert_ffn < 1)
      throw Error("megatron engine: " + model.name +
                  " is a mixture of experts without valid num_experts, experts_per_token and "
                  "an expert width");
  }
  if (s.hidden < 1 || s.heads < 1 || s.head_dim < 1 || s.ffn < 1 || s.vocab < 1 || s.layers < 1)
    throw Error("megatron engine: " + model.name +
                " lacks a size (hidden, heads, head_dim, ffn, vocabulary, layers must be >= 1)");
  return s;
}

MegatronPass megatron_layer(const MegatronShape& m, const MegatronDims& d, bool moe) {
  MegatronPass p;
  // plain copies, not a structured binding: the layer's lambdas capture them (clang 14, the WASM
  // build's, cannot capture a binding)
  const PassSizes z = pass_sizes(d);
  const DataType act = z.act;
  const double eb = z.eb;
  const std::int64_t tp = d.tp, T = z.T, Tn = z.Tn;  // Tn: the norm region's tokens
  const std::int64_t h = m.hidden, hd = m.head_dim, s = d.seq, b = d.micro_batch;
  const std::int64_t heads = m.heads / tp;
  const std::int64_t kv = m.kv_heads % tp == 0 ? m.kv_heads / tp : 1;
  const std::int64_t qc = dim_mul(heads, hd, "heads x head_dim"),
                     kvc = dim_mul(kv, hd, "kv heads x head_dim"),
                     qkv = checked(qc + 2 * kvc, "query, key and value width");
  const std::int64_t ffn = ceil_div(m.ffn, tp), fc1 = m.gated_mlp ? 2 * ffn : ffn;
  const double hid = double(Tn) * double(h);  // norm-region activation elements
  const double full = double(T) * double(h);  // gathered activation elements
  const bool tpc = tp > 1;
  const Collective reduce =
      d.sequence_parallel ? Collective::kReduceScatter : Collective::kAllReduce;
  const double drop = m.hidden_dropout ? 1 : 0;  // the dropout mask, one byte an element

  p.params = double(h) * double(qkv) + double(qc) * double(h) + 4.0 * double(h);
  if (!moe) p.params += double(h) * double(fc1) + double(ffn) * double(h);
  if (m.bias) p.params += double(qkv + h) + (moe ? 0.0 : double(fc1 + h));
  if (d.dtype != act)
    p.fp8_params = double(h) * double(qkv) + double(qc) * double(h) +
                   (moe ? 0.0 : double(h) * double(fc1) + double(ffn) * double(h));

  std::vector<MegatronItem> moe_backward;  // the MoE MLP's backward, built with its forward
  Emitter f{p.forward, d.dtype, act};
  Emitter g_moe{moe_backward, d.dtype, act};
  const char* norm = m.rms_norm ? "rmsnorm" : "layernorm";
  // context parallelism: this rank's queries (s / cp, load-balanced causal chunks) against every
  // key: 1/cp of the attention FLOPs; the K/V chunks go round the cp ring in cp - 1 send/recv
  // steps under the attention kernel (TransformerEngine's ring attention overlaps them)
  const double cp_share = 1.0 / double(d.cp);
  const double kv_chunk = double(T) * double(2 * kvc) * eb;
  auto attention_forward = [&](Emitter& e) {
    if (d.attention == AttentionKernel::flash) {
      if (d.cp > 1)
        e.comm("context-parallel K/V ring (send/recv)", Collective::kSendRecv, kv_chunk, true,
               MegatronGroup::cp, double(d.cp - 1));
      const double flops = 4.0 * double(b) * double(heads) * double(s) * double(s) * double(hd) *
                           (m.causal ? 0.5 : 1.0) * cp_share;
      e.flash("flash attention forward", flops, double(T) * double(2 * qc + 2 * kvc) * eb, false);
      return;
    }
    const std::int64_t B = dim_mul(b, heads, "micro-batch x heads");
    e.bmm("attention scores (QK^T)", B, s, hd, s);
    e.softmax("fused scale-mask-softmax", dim_mul(B, s, "micro-batch x heads x seq"), s, 2);
    if (m.attention_dropout)
      e.memory("attention dropout", double(B) * double(s) * double(s) * (2 * eb + 1),
               OpKind::memory, true);
    e.bmm("attention values (AV)", B, s, s, hd);
  };

  f.memory(std::string(norm) + " (fused)", 2 * hid * eb, OpKind::norm);
  if (tpc && d.sequence_parallel) f.comm("all-gather (sp)", Collective::kAllGather, full * eb);
  f.linear("qkv", T, h, qkv, false, h);
  if (m.rotary)
    f.memory("rotary (fused)", 2.0 * double(T) * double(qc + kvc) * eb, OpKind::elementwise);
  attention_forward(f);
  f.linear("attention output", T, qc, h, false, qc);
  if (tpc)
    f.comm(d.sequence_parallel ? "reduce-scatter (sp)" : "all-reduce (tp)", reduce, full * eb);
  f.memory("bias-dropout-add (fused)", hid * (3 * eb + drop), OpKind::elementwise);
  f.memory(std::string(norm) + " (fused)", 2 * hid * eb, OpKind::norm);
  if (moe) {
    moe_mlp(p, f, g_moe, m, d, Tn, eb);
  } else {
    if (tpc && d.sequence_parallel) f.comm("all-gather (sp)", Collective::kAllGather, full * eb);
    f.linear("fc1", T, h, fc1, false, h);
    f.memory(m.gated_mlp ? "swiglu (fused)" : "bias-gelu (fused)",
             double(T) * double(ffn) * eb * (m.gated_mlp ? 3 : 2), OpKind::elementwise);
    f.linear("fc2", T, ffn, h, false, ffn);
    if (tpc)
      f.comm(d.sequence_parallel ? "reduce-scatter (sp)" : "all-reduce (tp)", reduce, full * eb);
  }
  f.memory("bias-dropout-add (fused)", hid * (3 * eb + drop), OpKind::elementwise);

  Emitter g{p.backward, d.dtype, act};
  auto column_backward = [&](const char* name, std::int64_t outc) {
    // SP: the input is gathered again for the wgrad GEMM, under the dgrad GEMM
    if (tpc && d.sequence_parallel)
      g.comm("all-gather (sp, input again)", Collective::kAllGather, full * eb, true);
    g.linear(std::string(name) + " dgrad", T, outc, h, false, outc);
    if (tpc)
      g.comm(d.sequence_parallel ? "reduce-scatter (sp, input gradient)"
                                 : "all-reduce (tp, input gradient)",
             reduce, full * eb, true);
    g.linear(std::string(name) + " wgrad", outc, T, h, true);
  };
  auto row_backward = [&](const char* name, std::int64_t inc) {
    if (tpc && d.sequence_parallel)
      g.comm("all-gather (sp, output gradient)", Collective::kAllGather, full * eb);
    g.linear(std::string(name) + " dgrad", T, h, inc, false, h);
    g.linear(std::string(name) + " wgrad", h, T, inc, true);
  };
  if (m.hidden_dropout) g.memory("dropout backward", hid * (2 * eb + 1), OpKind::elementwise);
  if (moe) {
    for (MegatronItem& it : moe_backward) g.out.push_back(std::move(it));
  } else {
    row_backward("fc2", ffn);
    g.memory(m.gated_mlp ? "swiglu backward" : "bias-gelu backward",
             double(T) * double(ffn) * eb * (m.gated_mlp ? 5 : 3), OpKind::elementwise);
    column_backward("fc1", fc1);
  }
  g.memory(std::string(norm) + " backward", 3 * hid * eb, OpKind::norm);
  g.memory("residual gradient add", 3 * hid * eb, OpKind::elementwise);
  if (m.hidden_dropout) g.memory("dropout backward", hid * (2 * eb + 1), OpKind::elementwise);
  row_backward("attention output", qc);
  if (d.attention == AttentionKernel::flash) {
    if (d.cp > 1)  // K/V again, and their gradients back
      g.comm("context-parallel K/V and dK/dV ring (send/recv)", Collective::kSendRecv, 2 * kv_chunk,
             true, MegatronGroup::cp, double(d.cp - 1));
    const double flops = 2.5 * 4.0 * double(b) * double(heads) * double(s) * double(s) *
                         double(hd) * (m.causal ? 0.5 : 1.0) * cp_share;
    g.flash("flash attention backward", flops, double(T) * double(4 * qc + 4 * kvc) * eb, true);
  } else {
    const std::int64_t B = dim_mul(b, heads, "micro-batch x heads");
    g.bmm("AV backward (grad P)", B, s, hd, s);
    g.bmm("AV backward (grad V)", B, s, s, hd);
    if (m.attention_dropout)
      g.memory("attention dropout backward", double(B) * double(s) * double(s) * (2 * eb + 1),
               OpKind::memory, true);
    g.softmax("fused softmax backward", dim_mul(B, s, "micro-batch x heads x seq"), s, 3);
    g.bmm("QK^T backward (grad Q)", B, s, s, hd);
    g.bmm("QK^T backward (grad K)", B, s, s, hd);
  }
  if (m.rotary)
    g.memory("rotary backward", 2.0 * double(T) * double(qc + kvc) * eb, OpKind::elementwise);
  column_backward("qkv", qkv);
  g.memory(std::string(norm) + " backward", 3 * hid * eb, OpKind::norm);
  g.memory("residual gradient add", 3 * hid * eb, OpKind::elementwise);
  return p;
}

MegatronPass megatron_embedding(const MegatronShape& m, const MegatronDims& d) {
  MegatronPass p;
  const auto [act, eb, T, Tn] = pass_sizes(d);
  const double full = double(T) * double(m.hidden), hid = double(Tn) * double(m.hidden);
  const std::int64_t vocab = megatron_vocab_share(m, d.tp);
  p.params = double(vocab) * double(m.hidden) +
             (m.learned_positions ? double(m.max_positions) * double(m.hidden) : 0.0);
  Emitter f{p.forward, d.dtype, act};
  f.memory("vocab-parallel embedding lookup", 2 * full * eb, OpKind::memory);
  if (m.learned_positions) f.memory("position embedding add", 3 * full * eb, OpKind::elementwise);
  if (d.tp > 1)
    f.comm(d.sequence_parallel ? "reduce-scatter (sp)" : "all-reduce (tp)",
           d.sequence_parallel ? Collective::kReduceScatter : Collective::kAllReduce, full * eb);
  if (m.hidden_dropout) f.memory("embedding dropout", hid * (2 * eb + 1), OpKind::elementwise);
  Emitter g{p.backward, d.dtype, act};
  if (m.hidden_dropout)
    g.memory("embedding dropout backward", hid * (2 * eb + 1), OpKind::elementwise);
  if (d.tp > 1 && d.sequence_parallel)
    g.comm("all-gather (sp, output gradient)", Collective::kAllGather, full * eb);
  // the rows' gradients added into the FP32 main gradient (read-modify-write)
  g.memory("embedding gradient (scatter-add)", full * (eb + 8), OpKind::memory);
  return p;
}

MegatronPass megatron_head(const MegatronShape& m, const MegatronDims& d) {
  MegatronPass p;
  const auto [act, eb, T, Tn] = pass_sizes(d);
  const std::int64_t h = m.hidden, vocab = megatron_vocab_share(m, d.tp);
  const double full = double(T) * double(h), hid = double(Tn) * double(h);
  const double logits = double(T) * double(vocab);
  p.params = 2.0 * double(h) + (m.tied_embeddings ? 0.0 : double(vocab) * double(h));
  const char* norm = m.rms_norm ? "final rmsnorm" : "final layernorm";
  // the logits GEMM stays in the activation type (Megatron-Core's output layer is not a
  // TransformerEngine FP8 module)
  Emitter f{p.forward, act, act};
  f.memory(norm, 2 * hid * eb, OpKind::norm);
  if (d.tp > 1 && d.sequence_parallel) f.comm("all-gather (sp)", Collective::kAllGather, full * eb);
  f.linear("logits", T, h, vocab);
  // vocab-parallel cross-entropy in FP32: cast, max, exp and sum, normalise (several passes),
  // with all-reduces of per-token maxima, sums and target logits over the tensor-parallel group
  f.memory("vocab-parallel cross-entropy", logits * (eb + 28), OpKind::softmax);
  if (d.tp > 1)
    for (int i = 0; i < 3; ++i)
      f.comm("all-reduce (tp, cross-entropy)", Collective::kAllReduce, double(T) * 4);
  Emitter g{p.backward, act, act};
  g.memory("cross-entropy backward", logits * (12 + eb), OpKind::softmax);
  g.linear("logits dgrad", T, vocab, h);
  if (d.tp > 1)
    g.comm(d.sequence_parallel ? "reduce-scatter (sp, input gradient)"
                               : "all-reduce (tp, input gradient)",
           d.sequence_parallel ? Collective::kReduceScatter : Collective::kAllReduce, full * eb,
           true);
  g.linear("logits wgrad", vocab, T, h, true);
  g.memory(std::string(norm) + " backward", 3 * hid * eb, OpKind::norm);
  return p;
}

}  // namespace tilecast::detail
