// The graph builder's shared pieces and the per-architecture dispatch.
#include "tilecast/op_graph.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "graph/builder.hpp"
#include "tilecast/error.hpp"

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
constexpr double kMaxDim = 2147483648.0;  // 2^31, the kernel dimension limit
}

std::int64_t GraphBuilder::mul(double a, double b, double c) {
  const double x = a * b * c;
  if (!std::isfinite(x) || x > kMaxDim) {
    std::ostringstream os;
    os << "batch x seq is too large for this model: a kernel dimension would be " << x
       << " (at most 2^31); use a smaller batch or sequence";
    throw Error(os.str());
  }
  return static_cast<std::int64_t>(x);
}

void GraphBuilder::section(std::string_view name, std::int64_t count) {
  GraphSection s;
  s.name = std::string(name);
  s.count = count;
  graph_.sections.push_back(std::move(s));
}

void GraphBuilder::push(std::string_view name, Op op, std::int64_t d0, std::int64_t d1,
                        std::int64_t d2, std::int64_t d3, OpKind kind, Phase phase, double mem,
                        std::string_view stands_for) {
  if (graph_.sections.empty()) section("model", 1);
  GraphOp o;
  const std::int64_t dims[4] = {d0, d1, d2, d3};
  o.kernel = make_kernel(op, dims, is_gemm(op) ? 4 : 2);
  o.kind = kind;
  o.phase = phase;
  o.mem_elements = mem;
  o.stands_for = stands_for;
  o.name = name;
  graph_.sections.back().ops.push_back(o);
}

void GraphBuilder::linear(std::string_view name, std::int64_t rows, std::int64_t in,
                          std::int64_t out, bool bias, OpKind kind) {
  push(name, Op::linear, 1, rows, in, out, kind, Phase::forward);
  if (!training()) return;
  push(name, Op::linear, 1, rows, out, in, kind, Phase::backward);
  push(name, Op::linear, 1, out, rows, in, kind, Phase::backward);
  accumulate(name, double(in) * double(out));
  if (bias) accumulate(name, double(out));
}

void GraphBuilder::bmm(std::string_view name, std::int64_t b, std::int64_t m, std::int64_t n,
                       std::int64_t k, bool needs_grad) {
  push(name, Op::bmm, b, m, n, k, OpKind::attention_bmm, Phase::forward);
  if (!training() || !needs_grad) return;
  push(name, Op::bmm, b, m, k, n, OpKind::attention_bmm, Phase::backward);
  push(name, Op::bmm, b, n, m, k, OpKind::attention_bmm, Phase::backward);
}

void GraphBuilder::vec_fw(std::string_view name, Op op, std::int64_t rows, std::int64_t h,
                          OpKind kind, std::string_view stands_for) {
  push(name, op, rows, h, 1, 1, kind, Phase::forward, 0, stands_for);
}

void GraphBuilder::vec_bw(std::string_view name, Op op, std::int64_t rows, std::int64_t h,
                          OpKind kind, std::string_view stands_for) {
  if (training()) push(name, op, rows, h, 1, 1, kind, Phase::backward, 0, stands_for);
}

void GraphBuilder::vec(std::string_view name, Op op, std::int64_t rows, std::int64_t h, OpKind kind,
                       int grads, std::string_view stands_for) {
  vec_fw(name, op, rows, h, kind, stands_for);
  if (!training()) return;
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
}

void GraphBuilder::layer_norm(std::string_view name, std::int64_t rows, std::int64_t h) {
  vec(name, Op::ln, rows, h, OpKind::norm);
  if (!training()) return;
  // layer_norm_backward is two kernels: the input gradient (above, mul class) and
  // the gamma/beta gradient, a column reduction over dY and the normalised input.
  vec_bw(name, Op::mul, rows, h, OpKind::norm, "layernorm weight gradient");
  accumulate(name, double(h));
  accumulate(name, double(h));
}

void GraphBuilder::rms_norm(std::string_view name, std::int64_t rows, std::int64_t h) {
  // hidden.pow(2).mean(-1, keepdim) ; + eps ; rsqrt ; hidden * r ; weight * hidden
  vec(name, Op::powu, rows, h, OpKind::norm);
  mem(name, Phase::forward, double(rows) * double(h) + double(rows), h, "rmsnorm mean");
  if (training()) {
    mem(name, Phase::backward, double(rows) * double(h), h, "rmsnorm mean");
    mem(name, Phase::backward, double(rows) * double(h), h, "rmsnorm mean");
  }
  vec_fw(name, Op::addu, rows, 1, OpKind::norm);
  mem(name, Phase::forward, 2.0 * double(rows), 1, "rmsnorm rsqrt");
  if (training()) mem(name, Phase::backward, 2.0 * double(rows), 1, "rmsnorm rsqrt");
  vec(name, Op::mul, rows, h, OpKind::norm, 2);
  vec(name, Op::mul, rows, h, OpKind::norm, 2);
  if (training()) accumulate(name, double(h));
}

void GraphBuilder::dropout(std::string_view name, double p, std::int64_t rows, std::int64_t h) {
  if (!training() || p <= 0) return;
  const double n = double(rows) * double(h);
  mem(name, Phase::forward, 2 * n, h, "dropout");
  mem(name, Phase::backward, n, h, "dropout");
  mem(name, Phase::backward, n, h, "dropout");
}

void GraphBuilder::mem(std::string_view name, Phase phase, double elements, std::int64_t h,
                       std::string_view stands_for) {
  if (phase != Phase::forward && !training()) return;
  const double n = std::max(1.0, std::ceil(elements / 2));
  std::int64_t width = std::max<std::int64_t>(1, std::min<std::int64_t>(h, mul(n, 1)));
  const std::int64_t rows = mul(std::ceil(n / double(width)), 1);
  push(name, Op::addu, rows, width, 1, 1, OpKind::memory, phase, elements, stands_for);
}

void GraphBuilder::embedding(std::string_view name, std::int64_t rows, std::int64_t vocab,
                             std::int64_t h) {
  mem(name, Phase::forward, double(rows) + double(rows) * double(h), h, "embedding lookup");
  if (!training()) return;
  mem(name, Phase::backward, double(vocab) * double(h), h, "embedding backward");
  mem(name, Phase::backward, double(vocab) * double(h), h, "embedding backward");
  accumulate(name, double(vocab) * double(h));
}

void GraphBuilder::accumulate(std::string_view name, double elements) {
  if (!training()) return;
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
  if (w.batch < 1) throw Error("batch must be a positive integer, got " + std::to_string(w.batch));
  if (w.seq < 1) throw Error("seq must be a positive integer, got " + std::to_string(w.seq));
  if (w.batch > (std::int64_t{1} << 31) || w.seq > (std::int64_t{1} << 31))
    throw Error("batch and seq must be at most 2^31");
  OpGraph graph;
  detail::GraphBuilder g(w, graph);
  switch (model.architecture) {
    case Architecture::gpt2: detail::build_gpt2(model, g); break;
    case Architecture::bert: detail::build_bert(model, g); break;
    case Architecture::opt: detail::build_opt(model, g); break;
    case Architecture::llama:
    case Architecture::mistral:
    case Architecture::qwen2: detail::build_llama(model, g); break;
    case Architecture::switch_transformers: detail::build_switch(model, g); break;
  }
  return graph;
}

double graph_flops(const OpGraph& graph, Phase phase) {
  double total = 0;
  for (const auto& s : graph.sections) {
    double sec = 0;
    for (const auto& o : s.ops)
      if (o.phase == phase && o.mem_elements == 0) sec += kernel_flops(o.kernel);
    total += sec * double(s.count);
  }
  return total;
}

std::int64_t graph_kernel_count(const OpGraph& graph) {
  std::int64_t n = 0;
  for (const auto& s : graph.sections) n += std::int64_t(s.ops.size()) * s.count;
  return n;
}

}  // namespace tilecast
