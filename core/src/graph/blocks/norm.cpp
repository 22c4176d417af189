// LayerNorm, RMSNorm (with or without a weight) and Cohere's spelt-out LayerNorm, with the
// parameters they hold and what they keep for the backward pass.
#include <optional>

#include "graph/blocks/blocks.hpp"

namespace tilecast::detail {
namespace {

void layer_norm(GraphBuilder& g, std::string_view name, std::int64_t rows, std::int64_t h) {
  g.vec(name, Op::ln, rows, h, OpKind::norm)
      .holds(2 * double(h))
      .saves((double(rows) * double(h) + 2 * double(rows)) * kFloatBytes);  // input, mean, rstd
  if (!g.training()) return;
  // layer_norm_backward is two kernels: the input gradient (above, mul class) and
  // the gamma/beta gradient, a column reduction over dY and the normalised input.
  g.vec_bw(name, Op::mul, rows, h, OpKind::norm, "layernorm weight gradient");
  g.accumulate(name, double(h));
  g.accumulate(name, double(h));
}

// Runs `kernels(upcast)` as Hugging Face's norms run in a pure half forward (fp32_islands):
// their input cast to FP32 before and back after, the kernels between in FP32; as they are in
// any other workload.
template <class Kernels>
void fp32_island(GraphBuilder& g, std::string_view name, double n, std::int64_t h,
                 Kernels&& kernels) {
  const bool upcast = g.fp32_islands();
  if (upcast) g.cast(name, Phase::forward, n, h, "to float32");
  {
    std::optional<GraphBuilder::Fp32Kernels> fp32;
    if (upcast) fp32.emplace(g);
    kernels(upcast);
  }
  if (upcast) g.cast(name, Phase::forward, n, h, "to half");
}

// + eps, then rsqrt, over one value a row (`what`: the kernel the rsqrt stands for); the rsqrt
// keeps its output.
void eps_rsqrt(GraphBuilder& g, std::string_view name, std::int64_t rows, std::string_view what) {
  g.vec_fw(name, Op::addu, rows, 1, OpKind::norm);
  g.mem(name, Phase::forward, 2.0 * double(rows), 1, what).saves(double(rows) * kFloatBytes);
  if (g.training()) g.mem(name, Phase::backward, 2.0 * double(rows), 1, what);
}

// weight * normed: the weight its parameters, the normed kept; its gradient accumulated.
void weight_multiply(GraphBuilder& g, std::string_view name, std::int64_t rows, std::int64_t h) {
  g.vec(name, Op::mul, rows, h, OpKind::norm, 2)
      .holds(double(h))
      .saves(double(rows) * double(h) * kFloatBytes);
}

// `weighted` false: Llama 4's L2 norm, the same kernels but the weight's multiply.
void rms_norm(GraphBuilder& g, std::string_view name, std::int64_t rows, std::int64_t h,
              bool weighted) {
  const double n = double(rows) * double(h);
  // Every Hugging Face RMSNorm computes in FP32: in a pure half forward the input is cast up
  // and the normed rows cast back before the weight's multiply (Gemma's multiplies in FP32
  // and casts last: the same kernels and bytes but the weight's).
  fp32_island(g, name, n, h, [&](bool) {
    // hidden.pow(2).mean(-1, keepdim) ; + eps ; rsqrt ; hidden * r ; weight * hidden
    g.vec(name, Op::powu, rows, h, OpKind::norm);  // keeps hidden
    g.mem(name, Phase::forward, n + double(rows), h, "rmsnorm mean");
    if (g.training()) {
      g.mem(name, Phase::backward, n, h, "rmsnorm mean");
      g.mem(name, Phase::backward, n, h, "rmsnorm mean");
    }
    eps_rsqrt(g, name, rows, "rmsnorm rsqrt");
    // hidden * r keeps r (hidden is kept above)
    g.vec(name, Op::mul, rows, h, OpKind::norm, 2).saves(double(rows) * kFloatBytes);
  });
  if (!weighted) return;
  weight_multiply(g, name, rows, h);
  if (g.training()) g.accumulate(name, double(h));
}

// Cohere's LayerNorm as eager PyTorch runs it, every kernel in FP32 (a pure half forward casts
// in and out): the mean, x - mean, its square, the variance's mean, + eps, rsqrt, x - mean again,
// the product, then the FP32 weight's multiply (no bias).
void layer_norm_fp32(GraphBuilder& g, std::string_view name, std::int64_t rows, std::int64_t h) {
  const double n = double(rows) * double(h);
  fp32_island(g, name, n, h, [&](bool upcast) {
    // mean(-1): a row reduction (its backward spreads each row's gradient back over the row)
    auto row_mean = [&](std::string_view what) {
      g.mem(name, Phase::forward, n + double(rows), h, what);
      if (g.training()) g.mem(name, Phase::backward, n, h, what);
    };
    row_mean("layernorm mean");
    g.vec(name, Op::add, rows, h, OpKind::norm, 2);  // x - mean
    g.vec(name, Op::powu, rows, h, OpKind::norm);    // its square (keeps its input)
    row_mean("layernorm variance");
    eps_rsqrt(g, name, rows, "layernorm rsqrt");
    g.vec(name, Op::add, rows, h, OpKind::norm, 2);  // x - mean, again
    // (x - mean) * rsqrt keeps both
    g.vec(name, Op::mul, rows, h, OpKind::norm, 2).saves((n + double(rows)) * kFloatBytes);
    if (upcast) g.cast(name, Phase::forward, double(h), h, "weight to float32");
    weight_multiply(g, name, rows, h);
  });
  if (g.training()) g.accumulate(name, double(h));
}

}  // namespace

void norm(GraphBuilder& g, Norm kind, std::string_view name, std::int64_t rows, std::int64_t h) {
  if (kind == Norm::layer) {
    layer_norm(g, name, rows, h);
    return;
  }
  if (kind == Norm::layer_fp32) {
    layer_norm_fp32(g, name, rows, h);
    return;
  }
  // Gemma: normed * (1 + weight): the 1 + weight is one more (tiny) kernel per call
  if (kind == Norm::rms_gemma) g.vec_fw(name, Op::addu, 1, h, OpKind::norm, "1 + weight");
  rms_norm(g, name, rows, h, kind != Norm::rms_unweighted);
}

}  // namespace tilecast::detail
