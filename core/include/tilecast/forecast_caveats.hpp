// What a learned forecast cannot vouch for, in words for its reader: a GPU of a vendor or
// an architecture that no training measurement came from. The roofline has none.
#pragma once

#include <string>
#include <vector>

#include "tilecast/gpu_spec.hpp"
#include "tilecast/kernel_forecast.hpp"

namespace tilecast {

std::vector<std::string> forecast_caveats(const GpuSpec& gpu, Predictor predictor);

}  // namespace tilecast
