#include "learned/amd_gemm.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "common/json_fields.hpp"
#include "learned/fit_bounds.hpp"
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
  const nlohmann::json j = detail::parse_json(json_text, origin);
  auto text = [&](const char* name, std::string_view want) {
    if (detail::string_field(j, name, origin) != want)
      throw Error(std::string(origin) + ": field '" + name + "' must be \"" + std::string(want) +
                  "\"");
  };
  text("format", kAmdGemmFormat);
  text("form", kAmdGemmForm);
  if (!detail::has_field(j, "ops") || !j["ops"].is_object())
    throw Error(std::string(origin) + ": field 'ops' must be an object with 'linear' and 'bmm'");
  AmdGemmModel m;
  const char* names[2] = {"linear", "bmm"};
  for (int o = 0; o < 2; ++o) {
    const std::string where = std::string(origin) + ", ops." + names[o];
    if (!detail::has_field(j["ops"], names[o]) || !j["ops"][names[o]].is_object())
      throw Error(where + ": missing or not an object");
    const nlohmann::json& p = j["ops"][names[o]];
    AmdGemmParams& q = m.ops[std::size_t(o)];
    q.compute_scale = detail::positive_field(p, "compute_scale", where, detail::kMaxFittedScale);
    q.tile_bandwidth_scale =
        detail::positive_field(p, "tile_bandwidth_scale", where, detail::kMaxFittedScale);
    q.tile_kcycles = detail::number_field(p, "tile_kcycles", where, 0, detail::kMaxFittedScale);
    q.bandwidth_scale =
        detail::number_field(p, "bandwidth_scale", where, 0, detail::kMaxFittedScale);
    q.overhead_ms = detail::number_field(p, "overhead_ms", where, 0, detail::kMaxFittedOverheadMs);
  }
  return m;
}

}  // namespace tilecast
