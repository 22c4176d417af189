// The caveats a static and a loaded serving forecast share, written once: the precision, the
// decode attention, how the published runs of the GPU's architecture came out, and the kernels
// no learned model covers.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "serve/quantize.hpp"
#include "tilecast/gpu_spec.hpp"
#include "tilecast/kernel_forecast.hpp"
#include "tilecast/model_config.hpp"

namespace tilecast::detail {

std::vector<std::string> serving_model_caveats(const GpuSpec& gpu, const ServingTypes& types,
                                               Predictor predictor, const ModelConfig& model,
                                               const std::set<std::string>& roofline_fallbacks);

}  // namespace tilecast::detail
