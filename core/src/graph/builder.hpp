// Shared pieces of the per-architecture graph builders: a linear layer's forward,
// backward and gradient accumulation, batched matmuls, vector ops with their
// gradients, memory-bound copies. Dimensions are checked as doubles before they
// become kernel dims, so an overflow is an error, never a wrapped integer.
//
// Each forward op also records the parameters it owns and, in training, the bytes
// autograd keeps for its backward (FP32 activations: 4 bytes an element; boolean
// masks 1; int64 indices 8). The rules, per op: linear its input; bmm both inputs;
// mul one operand per input needing a gradient; pow its input; relu, tanh, softmax
// their output; gelu its input; layer norm its input and per-row mean and rstd;
// dropout its mask; embedding its indices; add, scalar mul/div and copies nothing.
// Builders override a rule where they know better (OpRef::saves).
//
// Mixed precision (a training workload whose dtype is FP16 or BF16: torch.autocast): GEMMs
// and batched matmuls run in the half type on tensor cores and keep their inputs in it; every
// other kernel stays FP32 (autocast's FP32 list: softmax, norms, pow, rsqrt, losses; the
// element-wise ops on the FP32 residual stream promote to FP32, a stated simplification for
// the few that run in the half type). Each linear casts its FP32 weight (once per forward:
// autocast caches weight casts) and its input to the half type, and casts both gradients
// back to FP32 in the backward pass: copies moving 6 bytes an element. docs/mixed-precision.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tilecast/op_graph.hpp"

namespace tilecast::detail {

inline constexpr double kFloatBytes = 4;  // FP32 activations
inline constexpr double kMaskBytes = 1;   // boolean masks (dropout)
inline constexpr double kIndexBytes = 8;  // int64 token ids

class GraphBuilder;

// The forward op an add-op call made, to override what it records.
class OpRef {
 public:
  OpRef() = default;
  OpRef(GraphBuilder* g, std::size_t section, std::size_t op) : g_(g), section_(section), op_(op) {}
  // Bytes kept for the backward pass (ignored unless training).
  OpRef& saves(double bytes);
  // Parameters the op owns (elements).
  OpRef& holds(double elements);
  // Marks a fused attention kernel outside the kernel vocabulary: its FLOPs, bytes and keys per
  // query (GraphOp::fused_flops, fused_bytes, fused_keys).
  OpRef& fused(double flops, double bytes, double keys);

 private:
  GraphBuilder* g_ = nullptr;  // null: no op was added
  std::size_t section_ = 0, op_ = 0;
};

// A linear layer's options.
struct LinearOptions {
  bool bias = false;
  bool tied = false;           // the weight is another op's (a tied LM head); its bias is own
  bool shares_input = false;   // its input is kept already by an earlier op (k, v beside q)
  TpSplit tp = TpSplit::none;  // its tensor-parallel role (the blocks set column and row)
  // Which LoRA targets include it (Finetune::targets): the attention's projections, an MLP's
  // linears, or none (heads, routers, poolers).
  enum class LoraSite { none, attention, mlp } lora = LoraSite::none;
  bool routed_expert = false;  // a routed expert's weights (GraphOp::routed_expert)
};

class GraphBuilder {
 public:
  // `fp32_islands`: whether a pure half forward launches Hugging Face's FP32 islands as their
  // own kernels (eager), or not (torch.compile fuses them into their neighbours, which read
  // and write the half type: graph/engines/compiled.cpp).
  GraphBuilder(const Workload& w, OpGraph& graph, bool fp32_islands = true)
      : w_(w), graph_(graph), fp32_islands_(fp32_islands) {}

  const Workload& workload() const { return w_; }
  // The model's vocabulary: embeddings over it and linears onto it are marked vocabulary-
  // parallel (TpSplit) for every architecture without each builder saying so.
  void set_vocab(std::int64_t vocab) { vocab_ = vocab; }
  bool training() const { return w_.training(); }
  // A mixed-precision (autocast) training step: training at FP16 or BF16 over FP32 master
  // weights (Workload::autocast); with half master weights every kernel runs in the half type.
  bool autocast() const { return w_.autocast(); }
  // Bytes an element of a GEMM's saved input: the half type's in a half training step (autocast
  // saves the cast inputs), else FP32.
  double gemm_input_bytes() const {
    return w_.dtype != DataType::fp32 ? dtype_bytes(w_.dtype) : kFloatBytes;
  }
  // What the other saved activations (listed at FP32 bytes) take: half as much in a step whose
  // master weights are half (every activation in the half type), else as listed.
  double saved_scale() const {
    return w_.training() && !autocast() && w_.dtype != DataType::fp32
               ? dtype_bytes(w_.dtype) / kFloatBytes
               : 1;
  }
  // An autocast cast (FP32 <-> half) of `elements` elements in the phase: a copy reading 4 and
  // writing 2 bytes an element (no kernel unless autocast).
  void autocast_cast(std::string_view name, Phase phase, double elements, std::int64_t h);
  // Whether this is a pure half-precision forward (inference at FP16 or BF16, no autocast)
  // launched kernel by kernel. Hugging Face still computes RMSNorm and the Llama family's
  // attention probabilities in FP32 there (`hidden.to(torch.float32)`, `softmax(...,
  // dtype=torch.float32).to(query.dtype)`): those kernels run in FP32 between casts
  // (docs/mixed-precision.md, "FP32 islands of a half forward").
  bool fp32_islands() const {
    return fp32_islands_ && !w_.training() &&
           (w_.dtype == DataType::fp16 || w_.dtype == DataType::bf16);
  }
  // While alive, the kernels pushed (GEMMs aside) run in FP32, as every one does under autocast.
  class Fp32Kernels {
   public:
    explicit Fp32Kernels(GraphBuilder& g) : g_(g), was_(g.fp32_kernels_) { g.fp32_kernels_ = true; }
    ~Fp32Kernels() { g_.fp32_kernels_ = was_; }
    Fp32Kernels(const Fp32Kernels&) = delete;
    Fp32Kernels& operator=(const Fp32Kernels&) = delete;

   private:
    GraphBuilder& g_;
    bool was_;
  };
  // A cast between FP32 and the half type of `elements` elements in the phase: a copy reading
  // one and writing the other, 6 bytes an element, whatever type its kernel is listed in.
  void cast(std::string_view name, Phase phase, double elements, std::int64_t h,
            std::string_view stands_for);
  std::int64_t batch() const { return w_.batch; }
  std::int64_t query_len() const { return w_.query_len; }      // tokens computed per sequence
  std::int64_t context_len() const { return w_.context_len; }  // keys attended per query
  // a x b (x c), checked to stay within kernel dims.
  static std::int64_t mul(double a, double b, double c = 1);

  void section(std::string_view name, std::int64_t count);

  // y = x W^T (+ b) over `rows` rows. Forward Linear(rows,in,out); backward
  // Linear(rows,out,in) (input gradient) and Linear(out,rows,in) (weight gradient);
  // accumulation of the weight (and bias) gradients.
  OpRef linear(std::string_view name, std::int64_t rows, std::int64_t in, std::int64_t out,
               LinearOptions opts);
  // torch._grouped_mm over `groups` groups of `rows` rows, each group with its own weight of
  // in x out (a mixture's experts, the most rows any takes), as the GPU's PyTorch runs it
  // (Workload::grouped_mm_bf16_kernel): in pure BF16 there, one grouped GEMM kernel,
  // BMM(groups, rows, in, out), its backward one for the input gradient and one for the weight
  // gradients; otherwise the fallback: the groups' offsets copied to the host (a
  // synchronisation) and a linear per group (each pass of it, the backward's two included).
  // Returns the forward GEMM (the first group's in the fallback).
  OpRef grouped_linear(std::string_view name, std::int64_t groups, std::int64_t rows,
                       std::int64_t in, std::int64_t out, LinearOptions opts);
  // torch.bmm of `groups` x `rows` rows with stacked weights, groups x in x out (gpt-oss's experts
  // each on every token, transformers 4's inference): one BMM(groups, rows, in, out) kernel, its
  // backward one for the input gradient and one for the weight gradients (grouped_linear's
  // kernel). Returns the forward GEMM.
  OpRef stacked_linear(std::string_view name, std::int64_t groups, std::int64_t rows,
                       std::int64_t in, std::int64_t out, LinearOptions opts);
  // Batched matmul: forward BMM(b,m,n,k); backward BMM(b,m,k,n) and BMM(b,n,m,k).
  OpRef bmm(std::string_view name, std::int64_t b, std::int64_t m, std::int64_t n, std::int64_t k,
            bool needs_grad = true);

  // A vector op over rows x h with its backward kernels as PyTorch's autograd runs them.
  // `grads`: how many inputs need a gradient (binary ops).
  OpRef vec(std::string_view name, Op op, std::int64_t rows, std::int64_t h, OpKind kind,
            int grads = 1, std::string_view stands_for = {});
  // One forward-only or backward-only vector kernel.
  OpRef vec_fw(std::string_view name, Op op, std::int64_t rows, std::int64_t h, OpKind kind,
               std::string_view stands_for = {});
  void vec_bw(std::string_view name, Op op, std::int64_t rows, std::int64_t h, OpKind kind,
              std::string_view stands_for = {});
  // Dropout with probability p > 0 (skipped when p == 0 or in inference).
  void dropout(std::string_view name, double p, std::int64_t rows, std::int64_t h);
  // A memory-bound copy listing `elements` tensor elements in the phase, forecast as addu.
  OpRef mem(std::string_view name, Phase phase, double elements, std::int64_t h,
            std::string_view stands_for = "copy");
  // A host synchronisation (GraphOp::host_sync): the device-to-host copy of a few bytes (an
  // int64 count or index) that the host waits for, forecast as a copy of two elements.
  OpRef host_sync(std::string_view name, Phase phase = Phase::forward);
  // mem()'s elements (its kernel's type) that `bytes` bytes make: an int64 index, a bool.
  double mem_elements(double bytes) const { return bytes / dtype_bytes(kernel_dtype(Op::addu)); }
  // An embedding lookup of rows tokens into a table of vocab x h (`tied`: the table
  // is another embedding's, e.g. an encoder-decoder's shared one).
  void embedding(std::string_view name, std::int64_t rows, std::int64_t vocab, std::int64_t h,
                 bool tied = false);
  // Accumulation of a weight gradient of `elements` elements (none for frozen weights).
  void accumulate(std::string_view name, double elements);
  // LoRA / QLoRA (Workload::finetune): whether base weights are frozen in this step.
  bool frozen_base() const { return w_.training() && w_.finetune.frozen_base() && !in_adapter_; }

 private:
  friend class OpRef;
  OpRef push(std::string_view name, Op op, std::int64_t d0, std::int64_t d1, std::int64_t d2,
             std::int64_t d3, OpKind kind, Phase phase, double mem = 0,
             std::string_view stands_for = {});
  GraphOp& op(std::size_t section, std::size_t index) {
    return graph_.sections[section].ops[index];
  }
  // One weight's forward GEMM (op over groups x rows x in -> out: linear's one group,
  // grouped_linear's many) with what the memory and parallel models read from it: its
  // parameters, how tensor parallelism splits it (the options' role; a GEMM onto the vocabulary
  // vocabulary-parallel), the input it saves for the backward, whether it is a routed expert's,
  // and a frozen base's bytes per parameter (the compute type's, or QLoRA's NF4 when `nf4`).
  OpRef weight_gemm(std::string_view name, Op op, std::int64_t groups, std::int64_t rows,
                    std::int64_t in, std::int64_t out, double params, const LinearOptions& opts,
                    bool nf4 = false);
  // Its backward GEMMs: the input gradient, and the weight gradient unless the base is frozen.
  void weight_gradient_gemms(std::string_view name, Op op, std::int64_t groups, std::int64_t rows,
                             std::int64_t in, std::int64_t out);
  // A frozen linear's low-rank adapter beside it: x A^T (rank r), then B, scaled and added to
  // the base output (its backward adds the adapter's input gradient into the base's).
  void lora_adapter(std::string_view name, std::int64_t rows, std::int64_t in, std::int64_t out);
  // QLoRA's dequantization of a frozen NF4 weight of `elements` to the compute type before a
  // GEMM reads it: a memory-bound copy reading kNf4BytesPerParam and writing the GEMM's type.
  void nf4_dequantize(std::string_view name, Phase phase, double elements, std::int64_t h);
  bool lora_target(LinearOptions::LoraSite site) const;
  const Workload& w_;
  OpGraph& graph_;
  bool fp32_islands_ = true;
  std::int64_t vocab_ = 0;
  bool in_adapter_ = false;    // building an adapter: its weights train
  bool fp32_kernels_ = false;  // Fp32Kernels alive
  // The data type of a kernel pushed now: GEMMs in the workload's, the rest in FP32 under
  // autocast or Fp32Kernels.
  DataType kernel_dtype(Op op) const;
};

// The Hugging Face module graph (build_op_graph), with or without the FP32 islands of a pure
// half forward as kernels of their own (GraphBuilder's constructor).
OpGraph build_module_graph(const ModelConfig& model, const Workload& w, bool fp32_islands);

// The forward passes (graph/<file>.cpp); each architecture's row names its builder
// (model/architectures.cpp).
void build_gpt2(const ModelConfig& m, GraphBuilder& g);
void build_gptj(const ModelConfig& m, GraphBuilder& g);
void build_bert(const ModelConfig& m, GraphBuilder& g);
void build_falcon(const ModelConfig& m, GraphBuilder& g);
void build_opt(const ModelConfig& m, GraphBuilder& g);
void build_llama(const ModelConfig& m, GraphBuilder& g);  // llama, mistral, qwen2
void build_switch(const ModelConfig& m, GraphBuilder& g);
void build_mixtral(const ModelConfig& m, GraphBuilder& g);  // mixtral, qwen2/3_moe, deepseek_v3
void build_gemma(const ModelConfig& m, GraphBuilder& g);    // gemma, gemma2, gemma3_text
void build_phi3(const ModelConfig& m, GraphBuilder& g);
void build_gpt_oss(const ModelConfig& m, GraphBuilder& g);
void build_llama4(const ModelConfig& m, GraphBuilder& g);  // llama4_text

}  // namespace tilecast::detail
