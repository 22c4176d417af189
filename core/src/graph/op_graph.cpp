// The graph builder's shared pieces; each architecture's row names its builder (architectures.cpp).
#include "tilecast/op_graph.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "common/format.hpp"
#include "graph/builder.hpp"
#include "model/architectures.hpp"
#include "tilecast/error.hpp"
#include "tilecast/precision.hpp"

namespace tilecast {

std::string_view op_kind_name(OpKind k) {
  switch (k) {
    case OpKind::gemm: return "gemm";
    case OpKind::attention_bmm: return "attention_bmm";
    case OpKind::softmax: return "softmax";
    case OpKind::norm: return "norm";
    case OpKind::elementwise: return "elementwise";
    case OpKind::memory: return "memory";
  }
  return "?";
}

namespace detail {
namespace {
constexpr double kMaxDim = double(kMaxKernelDim);  // the kernel dimension limit (kernel.hpp)

// Tensors of rows x h a forward vector op keeps for its backward (header rules).
double saved_tensors(Op op, int grads) {
  switch (op) {
    case Op::mul: return grads;
    case Op::pow:
    case Op::powu:
    case Op::relu:
    case Op::gelu:
    case Op::tanh:
    case Op::softmax:
    case Op::ln: return 1;
    case Op::div: return grads > 1 ? grads : 0;  // one gradient: a constant divisor
    default: return 0;
  }
}
}  // namespace

OpRef& OpRef::saves(double bytes) {
  if (g_ && g_->training()) g_->op(section_, op_).saved_bytes = bytes * g_->saved_scale();
  return *this;
}

OpRef& OpRef::holds(double elements) {
  if (g_) g_->op(section_, op_).param_elements = elements;
  return *this;
}

OpRef& OpRef::fused(double flops, double bytes, double keys) {
  if (g_) {
    g_->op(section_, op_).fused_flops = flops;
    g_->op(section_, op_).fused_bytes = bytes;
    g_->op(section_, op_).fused_keys = keys;
  }
  return *this;
}

std::int64_t GraphBuilder::mul(double a, double b, double c) {
  const double x = a * b * c;
  if (!std::isfinite(x) || x > kMaxDim) {
    throw Error("batch x seq is too large for this model: one kernel dimension would hold " +
                detail::format_g(x, 3) + " elements, more than any GPU's memory holds (at most " +
                detail::format_g(kMaxDim, 3) + "); use a smaller batch or sequence");
  }
  return static_cast<std::int64_t>(x);
}

void GraphBuilder::section(std::string_view name, std::int64_t count) {
  GraphSection s;
  s.name = std::string(name);
  s.count = count;
  graph_.sections.push_back(std::move(s));
}

OpRef GraphBuilder::push(std::string_view name, Op op, std::int64_t d0, std::int64_t d1,
                         std::int64_t d2, std::int64_t d3, OpKind kind, Phase phase, double mem,
                         std::string_view stands_for) {
  if (graph_.sections.empty()) section("model", 1);
  GraphOp o;
  const std::int64_t dims[4] = {d0, d1, d2, d3};
  o.kernel = make_kernel(op, dims, is_gemm(op) ? 4 : 2, kernel_dtype(op));
  o.kind = kind;
  o.phase = phase;
  o.mem_elements = mem;
  o.stands_for = stands_for;
  o.name = name;
  auto& ops = graph_.sections.back().ops;
  ops.push_back(std::move(o));
  return OpRef(this, graph_.sections.size() - 1, ops.size() - 1);
}

OpRef GraphBuilder::linear(std::string_view name, std::int64_t rows, std::int64_t in,
                           std::int64_t out, LinearOptions opts) {
  // LoRA / QLoRA: the base weight is frozen (no weight gradient, no accumulation, no cast of a
  // weight stored in the compute type); QLoRA's NF4 weights (the blocks' linears; the LM head
  // stays in the compute type, as bitsandbytes leaves it) are dequantized before each GEMM
  const bool frozen = frozen_base();
  const bool nf4 = frozen && w_.finetune.method == FinetuneMethod::qlora && !opts.tied &&
                   !(vocab_ > 0 && out == vocab_);
  if (nf4) nf4_dequantize(name, Phase::forward, double(in) * double(out), in);
  OpRef fw = weight_gemm(name, Op::linear, 1, rows, in, out,
                         (opts.tied ? 0 : double(in) * double(out)) + (opts.bias ? double(out) : 0),
                         opts, nf4);
  if (!training()) return fw;
  const double weight = double(in) * double(out), input = double(rows) * double(in);
  if (autocast()) {  // the casts run before the GEMM; fw still names the GEMM
    if (!frozen) autocast_cast(name, Phase::forward, weight, in);
    autocast_cast(name, Phase::forward, input, in);
  }
  if (nf4) nf4_dequantize(name, Phase::backward, weight, in);
  weight_gradient_gemms(name, Op::linear, 1, rows, in, out);
  if (autocast()) {
    autocast_cast(name, Phase::backward, input, in);
    if (!frozen) autocast_cast(name, Phase::backward, weight, in);
  }
  accumulate(name, double(in) * double(out));
  if (opts.bias) accumulate(name, double(out));
  if (frozen && lora_target(opts.lora)) lora_adapter(name, rows, in, out);
  return fw;
}

OpRef GraphBuilder::grouped_linear(std::string_view name, std::int64_t groups, std::int64_t rows,
                                   std::int64_t in, std::int64_t out, LinearOptions opts) {
  if (!w_.grouped_mm_bf16_kernel || w_.dtype != DataType::bf16 || autocast()) {
    // PyTorch's _grouped_mm_fallback: offs.cpu(), then at::mm_out per non-empty group; the
    // backward's two grouped calls (input gradient; weight gradients unless frozen) likewise
    const std::string offsets = std::string(name) + " offsets (cpu)";
    host_sync(offsets);
    OpRef first;
    for (std::int64_t e = 0; e < groups; ++e) {
      OpRef r = linear(name, rows, in, out, opts);
      if (e == 0) first = r;
    }
    host_sync(offsets, Phase::backward);
    if (!frozen_base()) host_sync(offsets, Phase::backward);
    return first;
  }
  return stacked_linear(name, groups, rows, in, out, opts);
}

OpRef GraphBuilder::stacked_linear(std::string_view name, std::int64_t groups, std::int64_t rows,
                                   std::int64_t in, std::int64_t out, LinearOptions opts) {
  const double weights = double(groups) * (double(in) * double(out));
  OpRef fw = weight_gemm(name, Op::bmm, groups, rows, in, out, weights, opts);
  if (!training()) return fw;
  weight_gradient_gemms(name, Op::bmm, groups, rows, in, out);
  accumulate(name, weights);
  return fw;
}

OpRef GraphBuilder::weight_gemm(std::string_view name, Op op, std::int64_t groups,
                                std::int64_t rows, std::int64_t in, std::int64_t out, double params,
                                const LinearOptions& opts, bool nf4) {
  OpRef fw = push(name, op, groups, rows, in, out, OpKind::gemm, Phase::forward);
  GraphOp& f = graph_.sections.back().ops.back();
  f.param_elements = params;
  const TpSplit tp = vocab_ > 0 && out == vocab_ ? TpSplit::vocab_head : opts.tp;
  f.tp = tp;
  f.routed_expert = opts.routed_expert;
  f.tp_elements = double(groups) * double(rows) * double(tp == TpSplit::row ? out : in);
  f.adapter = in_adapter_;
  if (frozen_base()) f.frozen_bytes_per_param = nf4 ? kNf4BytesPerParam : dtype_bytes(w_.dtype);
  if (training() && !opts.shares_input)
    f.saved_bytes = double(groups) * double(rows) * double(in) * gemm_input_bytes();
  return fw;
}

void GraphBuilder::weight_gradient_gemms(std::string_view name, Op op, std::int64_t groups,
                                         std::int64_t rows, std::int64_t in, std::int64_t out) {
  push(name, op, groups, rows, out, in, OpKind::gemm, Phase::backward);
  if (!frozen_base()) push(name, op, groups, out, rows, in, OpKind::gemm, Phase::backward);
}

bool GraphBuilder::lora_target(LinearOptions::LoraSite site) const {
  switch (site) {
    case LinearOptions::LoraSite::attention: return true;
    case LinearOptions::LoraSite::mlp: return w_.finetune.targets == LoraTargets::all_linear;
    case LinearOptions::LoraSite::none: return false;
  }
  return false;
}

void GraphBuilder::lora_adapter(std::string_view name, std::int64_t rows, std::int64_t in,
                                std::int64_t out) {
  const std::int64_t r = w_.finetune.rank;
  const std::string base(name);
  in_adapter_ = true;  // the adapters' weights train: gradients, accumulation, casts
  linear(base + " lora_A", rows, in, r, {.shares_input = true});
  linear(base + " lora_B", rows, r, out, {});
  vec(base + " lora scale", Op::mulu, rows, out, OpKind::elementwise);
  vec(base + " lora add", Op::add, rows, out, OpKind::elementwise, 2);
  vec_bw(base + " lora input gradient", Op::add, rows, in, OpKind::elementwise);
  in_adapter_ = false;
}

void GraphBuilder::nf4_dequantize(std::string_view name, Phase phase, double elements,
                                  std::int64_t h) {
  // mem() moves 4 bytes per listed element (elements / 2 addu elements of 8 bytes)
  const double bytes = elements * (kNf4BytesPerParam + dtype_bytes(w_.dtype));
  mem(name, phase, bytes / 4, h, "nf4 dequantize");
}

OpRef GraphBuilder::bmm(std::string_view name, std::int64_t b, std::int64_t m, std::int64_t n,
                        std::int64_t k, bool needs_grad) {
  OpRef fw = push(name, Op::bmm, b, m, n, k, OpKind::attention_bmm, Phase::forward);
  if (!training() || !needs_grad) return fw;
  graph_.sections.back().ops.back().saved_bytes =
      (double(b) * double(m) * double(n) + double(b) * double(n) * double(k)) * gemm_input_bytes();
  push(name, Op::bmm, b, m, k, n, OpKind::attention_bmm, Phase::backward);
  push(name, Op::bmm, b, n, m, k, OpKind::attention_bmm, Phase::backward);
  return fw;
}

OpRef GraphBuilder::vec_fw(std::string_view name, Op op, std::int64_t rows, std::int64_t h,
                           OpKind kind, std::string_view stands_for) {
  return push(name, op, rows, h, 1, 1, kind, Phase::forward, 0, stands_for);
}

void GraphBuilder::vec_bw(std::string_view name, Op op, std::int64_t rows, std::int64_t h,
                          OpKind kind, std::string_view stands_for) {
  if (training()) push(name, op, rows, h, 1, 1, kind, Phase::backward, 0, stands_for);
}

OpRef GraphBuilder::vec(std::string_view name, Op op, std::int64_t rows, std::int64_t h,
                        OpKind kind, int grads, std::string_view stands_for) {
  OpRef fw = vec_fw(name, op, rows, h, kind, stands_for);
  if (!training()) return fw;
  graph_.sections.back().ops.back().saved_bytes =
      saved_tensors(op, grads) * double(rows) * double(h) * kFloatBytes * saved_scale();
  auto bw = [&](Op b) { vec_bw(name, b, rows, h, kind, stands_for); };
  switch (op) {
    case Op::add:
    case Op::addu: break;  // the gradient passes through unchanged
    case Op::mul:
    case Op::div:
    case Op::pow:
      for (int i = 0; i < grads; ++i) bw(op == Op::pow ? Op::mul : op);
      break;
    case Op::mulu: bw(Op::mulu); break;
    case Op::divu: bw(Op::divu); break;
    case Op::powu:
      bw(Op::powu);
      bw(Op::mul);
      bw(Op::mulu);
      break;
    case Op::relu: bw(Op::relu); break;
    case Op::gelu: bw(Op::gelu); break;
    case Op::tanh:
      bw(Op::mulu);
      bw(Op::addu);
      break;  // (1 - y^2) * grad
    case Op::softmax:
      bw(Op::mul);
      bw(Op::softmax);
      break;  // y * (grad - sum(y * grad))
    case Op::ln: bw(Op::mul); break;
    case Op::linear:
    case Op::bmm: break;
  }
  return fw;
}

void GraphBuilder::dropout(std::string_view name, double p, std::int64_t rows, std::int64_t h) {
  if (!training() || p <= 0) return;
  const double n = double(rows) * double(h);
  mem(name, Phase::forward, 2 * n, h, "dropout").saves(n * kMaskBytes);
  mem(name, Phase::backward, n, h, "dropout");
  mem(name, Phase::backward, n, h, "dropout");
}

OpRef GraphBuilder::mem(std::string_view name, Phase phase, double elements, std::int64_t h,
                        std::string_view stands_for) {
  if (phase != Phase::forward && !training()) return {};
  const double n = std::max(1.0, std::ceil(elements / 2));
  std::int64_t width = std::max<std::int64_t>(1, std::min<std::int64_t>(h, mul(n, 1)));
  const std::int64_t rows = mul(std::ceil(n / double(width)), 1);
  return push(name, Op::addu, rows, width, 1, 1, OpKind::memory, phase, elements, stands_for);
}

DataType GraphBuilder::kernel_dtype(Op op) const {
  // autocast: only the GEMMs in the half type (header)
  return (autocast() || fp32_kernels_) && !is_gemm(op) ? DataType::fp32 : w_.dtype;
}

void GraphBuilder::cast(std::string_view name, Phase phase, double elements, std::int64_t h,
                        std::string_view stands_for) {
  // mem() lists values read and written in its kernel's type: 6 bytes an element in values
  const double value_bytes = dtype_bytes(kernel_dtype(Op::addu));
  mem(name, phase, 6.0 * elements / value_bytes, h, stands_for);
}

OpRef GraphBuilder::host_sync(std::string_view name, Phase phase) {
  if (phase != Phase::forward && !training()) return {};
  OpRef r = mem(name, phase, 2 * kIndexBytes / kFloatBytes, 1, "device-to-host copy");
  graph_.sections.back().ops.back().host_sync = true;
  return r;
}

void GraphBuilder::autocast_cast(std::string_view name, Phase phase, double elements,
                                 std::int64_t h) {
  if (autocast()) cast(name, phase, elements, h, "autocast cast");
}

void GraphBuilder::embedding(std::string_view name, std::int64_t rows, std::int64_t vocab,
                             std::int64_t h, bool tied) {
  mem(name, Phase::forward, double(rows) + double(rows) * double(h), h, "embedding lookup")
      .holds(tied ? 0 : double(vocab) * double(h))
      .saves(double(rows) * kIndexBytes);
  if (vocab_ > 0 && vocab == vocab_) {
    GraphOp& o = graph_.sections.back().ops.back();
    o.tp = TpSplit::vocab_embedding;
    o.tp_elements = double(rows) * double(h);
  }
  if (!training() || frozen_base()) return;
  mem(name, Phase::backward, double(vocab) * double(h), h, "embedding backward");
  mem(name, Phase::backward, double(vocab) * double(h), h, "embedding backward");
  accumulate(name, double(vocab) * double(h));
}

void GraphBuilder::accumulate(std::string_view name, double elements) {
  if (!training() || frozen_base()) return;
  if (elements <= kMaxDim) {
    push(name, Op::add, 1, mul(elements, 1), 1, 1, OpKind::elementwise, Phase::accumulate);
    return;
  }
  const std::int64_t h = std::int64_t{1} << 30;
  push(name, Op::add, mul(std::ceil(elements / double(h)), 1), h, 1, 1, OpKind::elementwise,
       Phase::accumulate);
}

}  // namespace detail

OpGraph build_op_graph(const ModelConfig& model, const Workload& w) {
  return detail::build_module_graph(model, w, true);
}

OpGraph detail::build_module_graph(const ModelConfig& model, const Workload& w, bool fp32_islands) {
  if (w.batch < 1) throw Error("batch must be a positive integer, got " + std::to_string(w.batch));
  if (w.query_len < 1)
    throw Error("seq must be a positive integer, got " + std::to_string(w.query_len));
  if (w.context_len < w.query_len)
    throw Error("the context (" + std::to_string(w.context_len) +
                " keys) must be at least the query length (" + std::to_string(w.query_len) + ")");
  if (w.mode != Mode::decode && w.context_len != w.query_len)
    throw Error(std::string(mode_name(w.mode)) +
                " attends every token to its own sequence: the context must equal seq");
  if (w.mode == Mode::decode && w.query_len != 1)
    throw Error("decode computes one token per sequence");
  constexpr std::int64_t kMaxLength = std::int64_t{1} << 31;
  if (w.batch > kMaxLength || w.context_len > kMaxLength)
    throw Error("batch, seq and context must be at most 2147483648");
  const ArchitectureTraits& arch = traits(model);
  const bool cached = w.mode == Mode::prefill || w.mode == Mode::decode;
  if (cached && arch.stack != Stack::decoder_only)
    throw Error(std::string(mode_name(w.mode)) + " needs a decoder-only model (" +
                architecture_names(Stack::decoder_only) + "); " + std::string(arch.model_type) +
                " is " + std::string(stack_name(arch.stack)) + ": use training or inference");
  if (w.finetune.frozen_base()) {
    if (!w.training())
      throw Error("finetune (LoRA / QLoRA) applies to mode training only, not " +
                  std::string(mode_name(w.mode)));
    if (w.finetune.rank < 1 || w.finetune.rank > kMaxLoraRank)
      throw Error("finetune rank must be 1.." + std::to_string(kMaxLoraRank) + ", got " +
                  std::to_string(w.finetune.rank));
  }
  OpGraph graph;
  detail::GraphBuilder g(w, graph, fp32_islands);
  g.set_vocab(model.vocab_size);
  arch.build(model, g);
  if (w.training() && w.finetune.frozen_base()) {
    // every other parameter (embeddings, norms, routers) is frozen in the compute type
    for (auto& s : graph.sections)
      for (auto& o : s.ops)
        if (o.param_elements > 0 && !o.adapter && o.frozen_bytes_per_param == 0)
          o.frozen_bytes_per_param = dtype_bytes(w.dtype);
  }
  return graph;
}

double op_flops(const GraphOp& op) {
  if (op.fused_kernels > 0) return op.chain_flops;
  return op.mem_elements == 0 ? kernel_flops(op.kernel) : 0;
}

double graph_flops(const OpGraph& graph, Phase phase) {
  double total = 0;
  for (const auto& s : graph.sections) {
    double sec = 0;
    for (const auto& o : s.ops)
      if (o.phase == phase) sec += op_flops(o);
    total += sec * double(s.count);
  }
  return total;
}

std::int64_t graph_kernel_count(const OpGraph& graph) {
  std::int64_t n = 0;
  for (const auto& s : graph.sections) n += std::int64_t(s.ops.size()) * s.count;
  return n;
}

namespace {

// A per-op quantity summed over the graph, each section counted as often as it repeats.
double graph_sum(const OpGraph& graph, double GraphOp::*field) {
  double total = 0;
  for (const auto& s : graph.sections) {
    double sec = 0;
    for (const auto& o : s.ops) sec += o.*field;
    total += sec * double(s.count);
  }
  return total;
}

}  // namespace

double graph_param_count(const OpGraph& graph) {
  return graph_sum(graph, &GraphOp::param_elements);
}

double graph_saved_bytes(const OpGraph& graph) { return graph_sum(graph, &GraphOp::saved_bytes); }

}  // namespace tilecast
