#include "learned/tensor_gemm.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "common/json_fields.hpp"
#include "kernel/fp32_accumulate.hpp"
#include "kernel/matrix_clock.hpp"
#include "learned/fit_bounds.hpp"
#include "tilecast/error.hpp"
#include "tilecast/roofline.hpp"

namespace tilecast {
TensorGemmTerms tensor_gemm_terms(const GpuSpec& gpu, const Kernel& k, const TilePlan& plan) {
  const double sm = double(std::max(gpu.num_sm, 1));
  // A GEMM that keeps the matrix cores busy (compute-bound at the sustained clock: its FLOPs per
  // byte at or above that clock's ridge) runs at the clock they sustain through a dense GEMM; a
  // memory-bound one (decode at small batches) leaves them lightly loaded, at the boost clock
  // (kernel/matrix_clock.hpp).
  const double share = matrix_clock_share(gpu, k.dtype);
  const double ridge = peak_gflops(gpu, k) * share / gpu.mem_bw_gbps;  // FLOPs per byte
  const double clock = kernel_flops(k) >= ridge * kernel_bytes(k) ? share : 1.0;
  const double flop_per_ms_sm = peak_gflops(gpu, k) * clock * 1e6 / sm;
  TensorGemmTerms t;
  t.compute_ms = double(plan.waves) * plan.tile_flops / flop_per_ms_sm;
  t.memory_ms = kernel_bytes(k) / (gpu.mem_bw_gbps * 1e6);
  t.rate_share = fp32_accumulate_share(gpu, k.dtype);
  return t;
}

double TensorGemmModel::latency_ms(const TensorGemmTerms& t) const {
  const double scale = t.rate_share < 1 ? 1 + (compute_scale - 1) * t.rate_share : compute_scale;
  return std::max(scale * t.compute_ms, bandwidth_scale * t.memory_ms) + overhead_ms;
}

TensorGemmModel parse_tensor_gemm_model(std::string_view json_text, std::string_view origin) {
  const nlohmann::json j = detail::parse_json(json_text, origin);
  if (detail::string_field(j, "form", origin) != kTensorGemmForm)
    throw Error(std::string(origin) + ": field 'form' must be \"" + std::string(kTensorGemmForm) +
                "\"");
  TensorGemmModel m;
  m.compute_scale = detail::positive_field(j, "compute_scale", origin, detail::kMaxFittedScale);
  m.bandwidth_scale = detail::positive_field(j, "bandwidth_scale", origin, detail::kMaxFittedScale);
  m.overhead_ms = detail::number_field(j, "overhead_ms", origin, 0, detail::kMaxFittedOverheadMs);
  return m;
}

}  // namespace tilecast
