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

// The note of the GPU's architecture in core/data/engines/serving.json "checks_by_architecture",
// or "" when it has none or when the forecast's GEMMs run in FP4, whose transfer note says how
// those runs came out (nvidia-half-gemm's manifest).
std::string serving_check_note(const GpuSpec& gpu, DataType gemm);

}  // namespace tilecast::detail
