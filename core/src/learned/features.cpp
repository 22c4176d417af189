#include "learned/features.hpp"

#include <algorithm>
#include <cmath>

#include "tilecast/roofline.hpp"

namespace tilecast {
namespace {

constexpr Op kElementwiseOps[] = {Op::add, Op::addu, Op::mul,  Op::mulu, Op::div, Op::divu,
                                  Op::pow, Op::powu, Op::relu, Op::gelu, Op::tanh};

double lg(double x) { return std::log2(std::max(x, 1e-30)); }

// log2 of the largest power of two (up to 16) dividing n: how far a kernel can use
// aligned, vectorized loads along that dimension (0 = odd, 4 = a multiple of 16). For a
// softmax row of n floats it also says whether rows start on a 32-byte memory sector.
double log2_alignment(std::int64_t n) {
  int a = 0;
  while (a < 4 && n > 0 && n % (std::int64_t{2} << a) == 0) ++a;
  return double(a);
}

// Whether a layer-norm row splits into whole passes of its block: PyTorch's
// vectorized_layer_norm_kernel runs 32x4 threads, each loading float4, so 512 elements a
// pass. A row with a partial last pass is slower per element than one without.
constexpr std::int64_t kLayerNormElementsPerPass = 512;

}  // namespace

double tile_roofline_ms(const GpuSpec& gpu, const Kernel& k, const TilePlan& plan) {
  const double sm = double(std::max(gpu.num_sm, 1));
  const double flop_per_ms_sm = peak_gflops(gpu, k.op) * 1e6 / sm;
  const double compute_ms = plan.tile_flops / flop_per_ms_sm;
  if (is_gemm(k.op)) {
    const double wave_bytes = kernel_bytes(k) / double(std::max<std::int64_t>(plan.waves, 1));
    return std::max(compute_ms, wave_bytes / (gpu.mem_bw_gbps * 1e6));
  }
  return std::max(compute_ms, plan.tile_bytes / (gpu.mem_bw_gbps * 1e6 / sm));
}

std::vector<std::string> feature_names(OpFamily family) {
  std::vector<std::string> n = {"log2_tile_flops",
                                "log2_tile_bytes",
                                "log2_wave_bytes_per_sm",
                                "log2_gflops_per_sm",
                                "log2_mem_bw_gbps_per_sm",
                                "log2_l2_mb_per_sm",
                                "log2_waves",
                                "log2_sm_fill",
                                "log2_bytes_over_l2",
                                "log2_tile_rows",
                                "log2_tile_cols",
                                "log2_tile_depth",
                                "log2_intensity_over_ridge",
                                "log2_num_sm"};
  if (family == OpFamily::gemm) {
    n.push_back("is_linear");
    n.push_back("is_bmm");
    n.push_back("log2_align_m");
    n.push_back("log2_align_n");
    n.push_back("log2_align_k");
  } else if (family == OpFamily::elementwise) {
    for (Op op : kElementwiseOps) n.push_back("is_" + std::string(op_name(op)));
  } else if (family == OpFamily::softmax) {
    n.push_back("log2_align_h");
  } else if (family == OpFamily::layernorm) {
    n.push_back("whole_passes");
  }
  return n;
}

Features kernel_features(const GpuSpec& gpu, const Kernel& k, const TilePlan& plan) {
  const double sm = double(std::max(gpu.num_sm, 1));
  const double peak = peak_gflops(gpu, k.op);
  const double tiles = double(plan.tiles);
  Features f;
  auto push = [&f](double x) { f.v[f.count++] = x; };
  push(lg(plan.tile_flops));
  push(lg(plan.tile_bytes));
  push(lg(double(plan.waves) * plan.tile_bytes));
  push(lg(peak / sm));
  push(lg(gpu.mem_bw_gbps / sm));
  push(lg(gpu.l2_mb / sm));
  push(lg(double(plan.waves)));
  push(lg(std::min(tiles, sm) / sm));
  push(lg(kernel_bytes(k) / (gpu.l2_mb * 1048576.0)));
  push(lg(plan.tile_rows));
  push(lg(plan.tile_cols));
  push(lg(plan.tile_depth));
  push(lg(plan.tile_flops / std::max(plan.tile_bytes, 1.0)) - lg(peak / gpu.mem_bw_gbps));
  push(lg(sm));
  const OpFamily family = op_family(k.op);
  if (family == OpFamily::gemm) {
    push(k.op == Op::linear ? 1.0 : 0.0);
    push(k.op == Op::bmm ? 1.0 : 0.0);
    push(log2_alignment(k.dims[1]));
    push(log2_alignment(k.dims[2]));
    push(log2_alignment(k.dims[3]));
  } else if (family == OpFamily::elementwise) {
    for (Op op : kElementwiseOps) push(k.op == op ? 1.0 : 0.0);
  } else if (family == OpFamily::softmax) {
    push(log2_alignment(k.dims[1]));
  } else if (family == OpFamily::layernorm) {
    push(k.dims[1] % kLayerNormElementsPerPass == 0 ? 1.0 : 0.0);
  }
  return f;
}

}  // namespace tilecast
