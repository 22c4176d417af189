#include "learned/amd_gemm.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "common/embedded_data.hpp"
#include "tilecast/error.hpp"
#include "tilecast/precision.hpp"
#include "tilecast/roofline.hpp"

namespace tilecast {

AmdGemmTerms amd_gemm_terms(const GpuSpec& gpu, const Kernel& k, const TilePlan& plan) {
  const double cu = double(std::max(gpu.num_sm, 1));
  // split-K: the tiles beyond B x ceil(K / rows) x ceil(M / cols) (kernel/tiles.cpp plan_gemm)
  const double grid = double(k.dims[0]) * std::ceil(double(k.dims[3]) / plan.tile_rows) *
                      std::ceil(double(k.dims[1]) / plan.tile_cols);
  const double split = grid > 0 ? std::max(1.0, std::round(double(plan.tiles) / grid)) : 1.0;
  AmdGemmTerms t;
  t.tiles_per_cu = double(plan.tiles) / cu;
  t.tile_compute_ms = plan.tile_flops / (peak_gflops(gpu, k) * 1e6 / cu);
  t.tile_memory_ms = plan.tile_bytes / (gpu.mem_bw_gbps * 1e6 / cu);
  t.kcycle_ms = 1000.0 / (gpu.clock_mhz * 1e3);
  const double partials = dtype_bytes(k.dtype) * (split - 1.0) * double(k.dims[0]) *
                          double(k.dims[1]) * double(k.dims[3]);
  t.memory_ms = (kernel_bytes(k) + partials) / (gpu.mem_bw_gbps * 1e6);
  return t;
}

double AmdGemmParams::latency_ms(const AmdGemmTerms& t) const {
  const double tile_ms =
      std::max(compute_scale * t.tile_compute_ms, tile_bandwidth_scale * t.tile_memory_ms) +
      tile_kcycles * t.kcycle_ms;
  return t.tiles_per_cu * tile_ms + bandwidth_scale * t.memory_ms + overhead_ms;
}

AmdGemmModel parse_amd_gemm_model(std::string_view json_text, std::string_view origin) {
  const std::string where(origin);
  const nlohmann::json j = nlohmann::json::parse(json_text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw Error(where + ": not a JSON object");
  auto text = [&](const char* name, std::string_view want) {
    if (!j.contains(name) || !j[name].is_string() || j[name].get<std::string>() != want)
      throw Error(where + ": field '" + name + "' must be \"" + std::string(want) + "\"");
  };
  text("format", kAmdGemmFormat);
  text("form", kAmdGemmForm);
  if (!j.contains("ops") || !j["ops"].is_object())
    throw Error(where + ": field 'ops' must be an object with 'linear' and 'bmm'");
  AmdGemmModel m;
  const char* names[2] = {"linear", "bmm"};
  for (int o = 0; o < 2; ++o) {
    if (!j["ops"].contains(names[o]) || !j["ops"][names[o]].is_object())
      throw Error(where + ": field 'ops." + names[o] + "' is missing or not an object");
    const nlohmann::json& p = j["ops"][names[o]];
    auto number = [&](const char* name, bool positive) {
      const std::string field = std::string("ops.") + names[o] + "." + name;
      if (!p.contains(name) || !p[name].is_number())
        throw Error(where + ": field '" + field + "' is missing or not a number");
      const double v = p[name].get<double>();
      if (!std::isfinite(v) || (positive ? !(v > 0) : v < 0))
        throw Error(where + ": field '" + field + "' is " + std::to_string(v) + "; expected " +
                    (positive ? "a positive number" : "a number >= 0"));
      return v;
    };
    AmdGemmParams& q = m.ops[std::size_t(o)];
    q.compute_scale = number("compute_scale", true);
    q.tile_bandwidth_scale = number("tile_bandwidth_scale", true);
    q.tile_kcycles = number("tile_kcycles", false);
    q.bandwidth_scale = number("bandwidth_scale", false);
    q.overhead_ms = number("overhead_ms", false);
  }
  return m;
}

const AmdGemmModel& embedded_amd_gemm_model() {
  static const AmdGemmModel model = [] {
    const std::string_view text = embedded::find("core/data/gemm_amd_fp32.json");
    if (text.empty()) return AmdGemmModel{};
    return parse_amd_gemm_model(text, "core/data/gemm_amd_fp32.json");
  }();
  return model;
}

}  // namespace tilecast
