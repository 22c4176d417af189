// What Megatron-LM / Megatron-Core (with TransformerEngine's fused kernels) runs for one
// transformer layer, the embedding and the head of one micro-batch on one tensor-parallel rank:
// the kernels in launch order, forward and backward, with the tensor-parallel collectives where
// Megatron puts them (docs/megatron.md). Built once per configuration by megatron.cpp and timed
// by the step (parallel/megatron_step.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tilecast/comm.hpp"
#include "tilecast/megatron.hpp"
#include "tilecast/op_graph.hpp"

namespace tilecast::detail {

// The process group a pass's collective runs over.
enum class MegatronGroup { tp, cp, ep };

// One entry of a pass: a kernel or a collective.
struct MegatronItem {
  bool is_comm = false;
  std::string name;
  // a kernel
  OpKind kind = OpKind::elementwise;
  Kernel kernel;           // forecast by forecast_kernel (GEMMs, batched GEMMs)
  double mem_bytes = 0;    // > 0: a fused memory-bound kernel moving these DRAM bytes
  double flash_flops = 0;  // > 0: a FlashAttention kernel of these FLOPs (kernel/flash_attention)
  double flash_bytes = 0;
  bool flash_backward = false;
  double flops = 0;             // the FLOPs it executes (HFU)
  bool attention_core = false;  // re-run by selective recomputation
  bool wgrad = false;           // a weight-gradient GEMM (a pending collective may overlap it)
  double repeat = 1;            // launches of this kernel or collective (one per local expert)
  // a collective over the tensor-parallel group (or the context- / expert-parallel one)
  MegatronGroup group = MegatronGroup::tp;
  Collective collective = Collective::kAllReduce;
  double comm_bytes = 0;    // per GPU (comm.hpp's convention)
  bool overlapped = false;  // runs under the next weight-gradient GEMM (Megatron's async
                            // all-reduce / reduce-scatter of the input gradient)
};

struct MegatronPass {
  std::vector<MegatronItem> forward, backward;
  double params = 0;  // this rank's parameters of the block
  // Of those, the weights of its FP8 GEMMs (FP8 training): cast to FP8 with their transpose
  // once a step (TransformerEngine caches them over the micro-batches), and kept as both.
  double fp8_params = 0;
  double expert_params = 0;  // of params, experts' (their gradients reduce over dp / ep)
};

// The shape Megatron sees, read from the model config (docs/megatron.md, "Models").
struct MegatronShape {
  std::int64_t hidden = 0, heads = 0, kv_heads = 0, head_dim = 0, ffn = 0, vocab = 0, layers = 0;
  bool gated_mlp = false;  // SwiGLU / GeGLU: fc1 is gate and up
  bool rms_norm = false;
  bool rotary = false;
  bool learned_positions = false;
  bool bias = false;
  bool attention_dropout = false, hidden_dropout = false;
  bool causal = true;
  bool tied_embeddings = true;
  std::int64_t max_positions = 0;
  // mixtures of experts (0 experts: dense): routed experts, top-k, one expert's MLP width, the
  // always-on shared expert's width (qwen2_moe), the share of layers with experts
  std::int64_t experts = 0, top_k = 0, expert_ffn = 0, shared_ffn = 0;
  double moe_fraction = 0;
};
// Throws Error for the architectures the engine does not model (encoder-decoder), naming what is
// supported.
MegatronShape megatron_shape(const ModelConfig& model);
// One GPU's share of the vocabulary Megatron-LM embeds and projects to: padded to a multiple of
// 128 x TP (--make-vocab-size-divisible-by times the tensor-parallel size; megatron/training/
// tokenizer, _vocab_size_with_padding), so GPT-2's 50,257 runs as 50,304 on one GPU and 51,200
// over TP 8, every share a multiple of 128 and its logits GEMM aligned
// (kernel/library_profile.hpp). Model FLOPs (tilecast/mfu.hpp) count the model's own vocabulary.
std::int64_t megatron_vocab_share(const MegatronShape& m, int tp);

struct MegatronDims {
  std::int64_t micro_batch = 1, seq = 1;
  int tp = 1;
  int cp = 1;  // context parallel: seq / cp tokens of each sequence on this rank
  int ep = 1;  // expert parallel: experts / ep on this rank
  bool sequence_parallel = false;
  AttentionKernel attention = AttentionKernel::flash;
  DataType dtype = DataType::bf16;  // activations and GEMMs (FP8: GEMMs at the FP8 peak)
};

// `moe`: the layer's MLP is the mixture of experts (router, permute, all-to-all dispatch over
// ep, each local expert's GEMMs, combine); else the dense MLP.
MegatronPass megatron_layer(const MegatronShape& m, const MegatronDims& d, bool moe = false);
MegatronPass megatron_embedding(const MegatronShape& m, const MegatronDims& d);
MegatronPass megatron_head(const MegatronShape& m, const MegatronDims& d);

}  // namespace tilecast::detail
