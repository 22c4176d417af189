// Serving caveats shared by the static batch (serving.cpp) and the load simulator.
#include "serve/serving_caveats.hpp"

#include "model/architectures.hpp"
#include "serve/decode_attention.hpp"
#include "serve/fixed_costs.hpp"
#include "tilecast/forecast_caveats.hpp"

namespace tilecast::detail {
namespace {

// The note of the GPU's architecture in core/data/engines/serving.json "checks_by_architecture",
// or "" when it has none or when the forecast's GEMMs run in FP4, whose transfer note says how
// those runs came out (nvidia-half-gemm's manifest).
std::string serving_check_note(const GpuSpec& gpu, DataType gemm) {
  if (gemm == DataType::fp4) return "";
  for (const auto& [arch, note] : serving_fixed_costs().checks_by_architecture)
    if (arch == gpu.architecture) return note;
  return "";
}

}  // namespace

std::vector<std::string> serving_model_caveats(const GpuSpec& gpu, const ServingTypes& types,
                                               Predictor predictor, const ModelConfig& model,
                                               const std::set<std::string>& roofline_fallbacks) {
  std::vector<std::string> c{precision_caveat(types, predictor)};
  if (std::string d = decode_attention_caveat(types.decode_attention, model); !d.empty())
    c.push_back(std::move(d));
  if (std::string n = serving_check_note(gpu, types.gemm); !n.empty()) c.push_back(std::move(n));
  if (top_k_routing(traits(model).routing)) c.push_back(serving_fixed_costs().checks_mixtures);
  for (std::string& r :
       roofline_caveats(types.act, {roofline_fallbacks.begin(), roofline_fallbacks.end()}))
    c.push_back(std::move(r));
  return c;
}

}  // namespace tilecast::detail
