// Memory per GPU under the Megatron engine (docs/megatron.md, "Memory"): Korthikanti et al.,
// "Reducing Activation Recomputation in Large Transformer Models" (arXiv:2205.05198), section 4,
// for the activations; Megatron's mixed-precision model states for the rest:
//   weights      the half-precision parameters (2 bytes each)
//   gradients    the main gradients (FP32, 4 bytes each; FP16 training keeps them in FP16)
//   optimizer    FP32 master weights and Adam's two moments (12 bytes each), / dp with the
//                distributed optimizer
//   activations  one micro-batch's layer activations x the rank's layers x the micro-batches in
//                flight: min(m, pp - rank) for 1F1B, (pp - rank - 1) x 2 + (v - 1) x pp + 1 model
//                chunks for the interleaved schedule (Korthikanti's L (1 + (p - 1)/(p v)) on the
//                first rank); full recomputation keeps each layer's input and one layer's
//                activations while it runs backward; the last rank adds the FP32 logits
//                (4sbv/t) and the final norm's input
//   workspace    the FP32 logits' gradient on the last rank, a gathered activation and its
//                gradient
//   context      the CUDA context and framework (serve/memory.hpp)
#include <algorithm>
#include <cmath>

#include "parallel/megatron.hpp"
#include "serve/memory.hpp"
#include "tilecast/enum_names.hpp"

namespace tilecast::detail {

std::vector<int> layers_per_rank(std::int64_t layers, int pp, int v) {
  std::vector<int> out(std::size_t(pp), 0);
  const std::int64_t chunks = std::int64_t(pp) * v;
  const std::int64_t base = layers / chunks, extra = layers % chunks;
  for (std::int64_t c = 0; c < chunks; ++c)  // chunk c of the model runs on rank c mod pp
    out[std::size_t(c % pp)] += int(base + (c < extra ? 1 : 0));
  return out;
}

double layer_activation_bytes(const MegatronShape& m, const MegatronDims& d, Recompute r) {
  const double t = d.tp, s = double(d.seq) / std::max(1, d.cp), b = double(d.micro_batch),
               h = double(m.hidden);
  const double U = s * b * h;  // sbh
  const double sp = d.sequence_parallel ? t : 1;
  if (r == Recompute::full) return 2 * U / sp;
  const double drop = m.hidden_dropout ? 1 : 0;
  const double q = double(m.heads) * double(m.head_dim) / h;
  const double kv = double(m.kv_heads) * double(m.head_dim) / h;
  const double f = double(m.ffn) / h;
  // outside the tensor-parallel region (replicated, or sharded by SP): the two norms' inputs,
  // the QKV and fc1 inputs, the two dropout masks
  const double outside = 4 + 2 + 2 + 2 * drop;
  // inside (sharded over t): Q, K, V, the output projection's input, the activation's input(s)
  // and fc2's input
  const double mlp = 2 * f * (m.gated_mlp ? 2 : 1) + 2 * f;
  double inside = 2 * q + 2 * kv + 2 * kv + 2 * q + mlp;
  double routed = 0;  // outside the tensor-parallel region: the permuted token copies, router
  if (m.experts > 0) {
    const double fe = double(m.expert_ffn) / h, fs = double(m.shared_ffn) / h;
    const double moe = double(m.top_k) * (2 + 2 * fe * (m.gated_mlp ? 2 : 1) + 2 * fe) +
                       (fs > 0 ? 2 * fs * 2 + 2 * fs : 0);
    inside += m.moe_fraction * (moe - mlp);
    routed = m.moe_fraction * (2.0 * double(m.top_k) + 4.0 * double(m.experts) / h);
  }
  double bytes = (outside + routed) * U / sp + inside * U / t;
  const bool scores = d.attention == AttentionKernel::fused_softmax && r != Recompute::selective;
  if (scores) {
    // softmax output (2 bytes), and with attention dropout its mask (1) and output (2): 5as^2b/t
    const double per = m.attention_dropout ? 5 : 2;
    bytes += per * double(m.heads) * s * s * b / t;
  } else if (d.attention == AttentionKernel::flash) {
    bytes += 4 * double(m.heads) * s * b / t;  // FlashAttention's log-sum-exp (FP32)
  }
  return bytes;
}

TrainingMemory megatron_rank_memory(const GpuSpec& gpu, const MegatronShape& m,
                                    const MegatronDims& d, const MegatronConfig& c,
                                    const RankMemoryInputs& in) {
  const double eb = dtype_bytes(activation_dtype(d.dtype));
  TrainingMemory mem;
  mem.stage = in.rank;
  mem.weights_gb = (in.params * eb + in.fp8_params * 2 * dtype_bytes(d.dtype)) / 1e9;
  mem.gradients_gb = in.params * in.grad_bytes / 1e9;
  const bool dist = c.distributed_optimizer;
  mem.optimizer_gb = ((in.params - in.expert_params) * 12 / (dist ? c.dp * c.cp : 1) +
                      in.expert_params * 12 / (dist ? c.dp / c.ep : 1)) /
                     1e9;
  const int pp = c.pp, v = c.virtual_stages;
  double in_flight_layers = 0;
  if (v <= 1) {
    in_flight_layers = double(in.layers) * std::min(c.microbatches, pp - in.rank);
  } else {
    const double chunks = std::min<double>(double(c.microbatches) * v,
                                           double(pp - in.rank - 1) * 2 + double(v - 1) * pp + 1);
    in_flight_layers = double(in.layers) / v * chunks;
  }
  const double T = double(d.micro_batch) * double(d.seq / std::max(1, d.cp));
  const double sp = d.sequence_parallel ? d.tp : 1;
  double act = layer_activation_bytes(m, d, c.recompute) * in_flight_layers;
  if (c.recompute == Recompute::full && in.layers > 0)
    act += layer_activation_bytes(m, d, Recompute::none);  // the layer running backward
  const double vocab_local = double(megatron_vocab_share(m, d.tp));
  if (in.first) act += T * double(m.hidden) * (m.hidden_dropout ? 1 : 0) / sp;  // embedding mask
  if (in.last) act += 4 * T * vocab_local + 2 * T * double(m.hidden) / sp;
  mem.activations_gb = act / 1e9;
  double workspace = 2 * T * double(m.hidden) * eb;
  if (in.last) workspace += 4 * T * vocab_local;
  mem.workspace_gb = workspace / 1e9;
  mem.context_gb = kContextGb;
  mem.total_gb = mem.weights_gb + mem.gradients_gb + mem.optimizer_gb + mem.activations_gb +
                 mem.workspace_gb + mem.context_gb;
  mem.capacity_gb = device_memory_bytes(gpu) / 1e9;
  mem.fits = mem.total_gb <= mem.capacity_gb;
  return mem;
}

}  // namespace tilecast::detail
