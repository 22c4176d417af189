#include "learned/tensor_gemm.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "common/embedded_data.hpp"
#include "tilecast/error.hpp"
#include "tilecast/roofline.hpp"

namespace tilecast {

TensorGemmTerms tensor_gemm_terms(const GpuSpec& gpu, const Kernel& k, const TilePlan& plan) {
  const double sm = double(std::max(gpu.num_sm, 1));
  const double flop_per_ms_sm = peak_gflops(gpu, k) * 1e6 / sm;
  TensorGemmTerms t;
  t.compute_ms = double(plan.waves) * plan.tile_flops / flop_per_ms_sm;
  t.memory_ms = kernel_bytes(k) / (gpu.mem_bw_gbps * 1e6);
  return t;
}

double TensorGemmModel::latency_ms(const TensorGemmTerms& t) const {
  return std::max(compute_scale * t.compute_ms, bandwidth_scale * t.memory_ms) + overhead_ms;
}

TensorGemmModel parse_tensor_gemm_model(std::string_view json_text, std::string_view origin) {
  const std::string where(origin);
  const nlohmann::json j = nlohmann::json::parse(json_text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw Error(where + ": not a JSON object");
  if (!j.contains("form") || !j["form"].is_string() ||
      j["form"].get<std::string>() != kTensorGemmForm)
    throw Error(where + ": field 'form' must be \"" + std::string(kTensorGemmForm) + "\"");
  auto number = [&](const char* name, bool positive) {
    if (!j.contains(name) || !j[name].is_number())
      throw Error(where + ": field '" + name + "' is missing or not a number");
    const double v = j[name].get<double>();
    if (!std::isfinite(v) || (positive ? !(v > 0) : v < 0))
      throw Error(where + ": field '" + name + "' is " + std::to_string(v) + "; expected " +
                  (positive ? "a positive number" : "a number >= 0"));
    return v;
  };
  TensorGemmModel m;
  m.compute_scale = number("compute_scale", true);
  m.bandwidth_scale = number("bandwidth_scale", true);
  m.overhead_ms = number("overhead_ms", false);
  return m;
}

const TensorGemmModel& embedded_tensor_gemm_model() {
  static const TensorGemmModel model = [] {
    const std::string_view text = embedded::find("core/data/tensor_gemm_fp16.json");
    if (text.empty()) return TensorGemmModel{};
    return parse_tensor_gemm_model(text, "core/data/tensor_gemm_fp16.json");
  }();
  return model;
}

}  // namespace tilecast
