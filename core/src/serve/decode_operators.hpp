// Where a static serving forecast's first decode step spends its time: the fused engine's
// kernels of that step, one row per operator with its work, roofline verdict and charged time
// (forecast/operator_bounds.hpp), as the API's `decode_operators`. The step's tensor-parallel
// all-reduces and the sampler are not kernels of the graph; they are the rest of the step.
#pragma once

#include <cstdint>
#include <vector>

#include "forecast/operator_bounds.hpp"
#include "tilecast/serving.hpp"

namespace tilecast::detail {

// The rows of the decode step with `cached` tokens in the cache (ServingForecast::decode_ms_at's
// first point); empty for an engine other than the fused one (the eager replay's host gaps are
// no operator's).
std::vector<OperatorBound> decode_step_operators(const GpuSpec& gpu, const ModelConfig& model,
                                                 const ServingRequest& r, std::int64_t cached);

}  // namespace tilecast::detail
