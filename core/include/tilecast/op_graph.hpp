// The kernels one training step or inference pass of a model launches in PyTorch
// eager FP32, per section (embeddings, each distinct layer type, head), each
// section counted as many times as it repeats.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tilecast/kernel.hpp"
#include "tilecast/model_config.hpp"

namespace tilecast {

// The breakdown classes of the forecast.
enum class OpKind { gemm, attention_bmm, softmax, norm, elementwise, memory };
inline constexpr int kOpKindCount = 6;
std::string_view op_kind_name(OpKind k);

// forward; backward (gradients); accumulate (adding weight gradients into .grad).
enum class Phase { forward, backward, accumulate };

// Where a forward op sits in Megatron's tensor parallelism (core/src/parallel/tp.cpp, docs/
// parallel.md): column-parallel linears all-reduce their input gradient in backward (one per
// group reading one input), row-parallel linears their output in forward; the vocabulary-
// parallel embedding all-reduces its output, the vocabulary-parallel head its input gradient.
// Set by the shared blocks and the builder; ignored by single-GPU forecasts.
enum class TpSplit { none, column, row, vocab_embedding, vocab_head };

struct GraphOp {
  Kernel kernel;  // what is forecast
  OpKind kind = OpKind::elementwise;
  Phase phase = Phase::forward;
  // > 0 for a memory-bound copy (embedding lookup, dropout, contiguous, where,
  // routing gathers): the number of tensor elements it lists (inputs + output),
  // forecast as `addu` over half as many elements (addu moves 8 bytes per element).
  double mem_elements = 0;
  // Non-empty when the kernel has no measurements of its own and is forecast as
  // `kernel` (e.g. "silu" forecast as gelu).
  std::string stands_for;
  std::string name;  // the module or function, e.g. "c_attn", "softmax"
  // What a forward op holds, for memory and communication sums (0 on backward and
  // accumulation ops):
  // parameters it owns (a linear's in x out weight and bias, an embedding table, a
  // norm's gain and bias); 0 for a weight tied to another op's (a tied LM head);
  double param_elements = 0;
  // activation bytes autograd keeps for the backward pass (training only; FP32):
  // e.g. a linear's input, a softmax's output, a dropout's mask.
  double saved_bytes = 0;
  // > 0: a fused kernel outside the kernel vocabulary (the fused engine's attention), forecast
  // from these FLOPs and bytes and the keys each query attends to (forecast/kernel_times.hpp,
  // FusedAttention); `kernel` then only names its shape.
  double fused_flops = 0;
  double fused_bytes = 0;
  double fused_keys = 0;
  // > 0: this op is a chain of that many eager vector kernels fused into one (torch.compile,
  // graph/engines/compiled.cpp), forecast as `kernel` (the chain's largest member, its anchor)
  // with the execution time scaled by `traffic_scale` (the chain's external bytes over the
  // anchor's); `chain_flops` are the chain's FLOPs.
  int fused_kernels = 0;
  double chain_flops = 0;
  double traffic_scale = 1;
  TpSplit tp = TpSplit::none;  // forward ops only
  double tp_elements = 0;      // the elements its tensor-parallel all-reduce carries
  // LoRA / QLoRA fine-tuning (Finetune): `adapter` marks a low-rank adapter's op, whose
  // parameters train; > 0: this op's parameters are frozen base weights stored at that many
  // bytes an element (no gradient, no optimizer state). Both unset in full training.
  bool adapter = false;
  double frozen_bytes_per_param = 0;
  // A routed expert's weight GEMM (forward): what a checkpoint quantizing only its experts
  // covers (gpt-oss's MXFP4, serve/quantize.cpp); not a shared expert, router or attention.
  bool routed_expert = false;
  // A device-to-host copy whose value Python reads before it goes on (nonzero's count,
  // .item(), .tolist()): the host waits for every kernel launched before it, then for the copy,
  // so the GPU runs dry until the host launches again. `kernel` is the copy's stand-in.
  bool host_sync = false;
};

// An op's floating-point operations: a fused chain's, none for a memory-bound copy, else its
// kernel's.
double op_flops(const GraphOp& op);

struct GraphSection {
  std::string name;        // e.g. "embeddings", "decoder layer", "head"
  std::int64_t count = 1;  // how many times it repeats
  std::vector<GraphOp> ops;
};

// What one forecast runs: a training step (forward, backward, gradient
// accumulation), an inference pass (forward over whole sequences), a prefill (a
// prompt into an empty KV cache) or a decode step (one new token per sequence
// against a cache). Prefill and decode are for decoder-only models.
enum class Mode { training, inference, prefill, decode };
std::string_view mode_name(Mode m);  // "training", "inference", "prefill", "decode"
// The one parser of the mode words the CLI and the API accept: training (train),
// inference (inf), prefill, decode. Throws Error listing them.
Mode parse_mode(std::string_view word);

// Parameter-efficient fine-tuning of a training step (graph/op_graph.cpp, docs/model-forecast.md):
// `full` trains every weight; `lora` freezes the base weights and trains low-rank adapters
// y = x W^T + (x A^T) B^T * alpha/r on the target linears (Hu et al. 2021, arXiv 2106.09685);
// `qlora` also stores the frozen linears' weights as 4-bit NF4 and dequantizes them before each
// use (Dettmers et al. 2023, arXiv 2305.14314).
enum class FinetuneMethod { full, lora, qlora };
// The linears that get adapters: the attention's q, k, v, o projections (PEFT's usual default
// for Llama), or every linear of the blocks (attention and MLP; PEFT's "all-linear", the LM head
// excluded).
enum class LoraTargets { attention, all_linear };
struct Finetune {
  FinetuneMethod method = FinetuneMethod::full;
  std::int64_t rank = 16;  // the adapters' rank r (1..1024)
  LoraTargets targets = LoraTargets::attention;
  bool frozen_base() const { return method != FinetuneMethod::full; }
};
inline constexpr std::int64_t kMaxLoraRank = 1024;
// The bytes an NF4 weight element takes: 4 bits plus QLoRA's double-quantized block constants
// (an FP8 scale per 64 weights and an FP32 scale per 256 of those: 0.127 bits a parameter,
// arXiv 2305.14314, section 3).
inline constexpr double kNf4BytesPerParam = (4.0 + 8.0 / 64 + 32.0 / (64 * 256)) / 8;
std::string_view finetune_method_name(FinetuneMethod m);  // "full" | "lora" | "qlora"
std::string_view lora_targets_name(LoraTargets t);        // "attention" | "all_linear"
// The weights a half-precision training step updates: `fp32` master weights under autocast
// (torch.autocast over an FP32 model: GEMMs in the half type, the rest in FP32, casts between),
// or the `half` type itself (model.to(torch.bfloat16): every kernel, gradient and Adam state in
// the half type, no casts). Ignored at FP32 and outside training.
enum class MasterWeights { fp32, half };
std::string_view master_weights_name(MasterWeights m);  // "fp32" | "half"
MasterWeights parse_master_weights(std::string_view word);

struct Workload {
  Mode mode = Mode::inference;
  std::int64_t batch = 1;
  std::int64_t query_len = 1;    // tokens per sequence this pass computes (decode: 1)
  std::int64_t context_len = 1;  // keys each query attends to (decode: the cache + 1)
  // The data type GEMMs and vector ops compute in (every kernel's make_kernel dtype); FP32,
  // the default, is the eager FP32 graph every existing forecast uses.
  DataType dtype = DataType::fp32;
  Finetune finetune;                                   // training only: full, LoRA or QLoRA
  MasterWeights master_weights = MasterWeights::fp32;  // training at FP16/BF16 only
  // Whether the GPU's PyTorch runs torch._grouped_mm on BF16 as one grouped GEMM kernel (else
  // its fallback: a host synchronisation and a GEMM per group), which transformers 5's experts
  // call (graph/blocks/moe.cpp). Set from the GPU by build_gpu_graph (tilecast/model_forecast.hpp);
  // false for a graph built without a GPU.
  bool grouped_mm_bf16_kernel = false;
  bool training() const { return mode == Mode::training; }
  // A training step at FP16/BF16 with FP32 master weights: torch.autocast.
  bool autocast() const {
    return training() && dtype != DataType::fp32 && master_weights == MasterWeights::fp32;
  }
};

// A workload from the front ends' words: `seq` is the sequence (prompt) length;
// decode runs one token against a cache of `cache_len` tokens (0: seq).
Workload make_workload(Mode mode, std::int64_t batch, std::int64_t seq, std::int64_t cache_len = 0);

struct OpGraph {
  std::vector<GraphSection> sections;
};

// Throws tilecast::Error when batch or a length is not positive, the mode does not
// apply to the architecture (prefill/decode of an encoder), or a kernel dimension
// would be too large (e.g. batch x seq x heads).
OpGraph build_op_graph(const ModelConfig& model, const Workload& w);

// How the kernels of a pass are launched (graph/engines/): `eager` is the Hugging Face module
// graph above, PyTorch eager; `fused` an optimised serving engine (vLLM-like: one fused
// attention kernel per layer that never writes the score matrix, norm + residual and
// activation + gate fused, logits of the last position only; prefill and decode only,
// docs/serving.md); `compiled` the eager graph as torch.compile (Inductor) runs it: each chain
// of consecutive element-wise / norm / softmax / copy kernels becomes one kernel moving only
// the chain's external inputs and outputs, GEMMs stay library kernels (docs/fusion.md).
enum class Engine { fused, eager, compiled };
std::string_view engine_name(Engine e);  // "fused" | "eager" | "compiled"
// "fused" (or "optimised", "optimized"), "eager", "compiled" (or "compile", "inductor");
// throws Error listing them.
Engine parse_engine(std::string_view word);
// The graph the engine launches for the workload (eager: build_op_graph; fused: prefill or
// decode only).
OpGraph build_engine_graph(const ModelConfig& model, const Workload& w, Engine engine);

// Floating-point operations of one phase over the whole graph (repeats counted).
double graph_flops(const OpGraph& graph, Phase phase);
// Kernel launches over the whole graph (repeats counted).
std::int64_t graph_kernel_count(const OpGraph& graph);
// Parameters (elements) over the whole graph, repeats counted, tied weights once.
double graph_param_count(const OpGraph& graph);
// Bytes kept for the backward pass over the whole graph (repeats counted; 0 unless
// training). A sum over ops: a tensor two ops keep is counted by the first only
// where the builder knows they share it (q/k/v on one input), else twice.
double graph_saved_bytes(const OpGraph& graph);

}  // namespace tilecast
