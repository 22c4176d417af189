// The Megatron engine's request fields (docs/megatron.md, "API"): forecast_model with
// "engine": "megatron".
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "tilecast/gpu_spec.hpp"
#include "tilecast/model_config.hpp"
#include "tilecast/op_graph.hpp"

namespace tilecast::detail {

// `req` is the whole forecast_model request; the GPU, model and workload (batch = global batch)
// are already read from it. Returns the forecast's JSON text; throws Error naming the field.
std::string forecast_megatron_request(const nlohmann::json& req, const GpuSpec& gpu,
                                      const ModelConfig& model, Mode mode, std::int64_t batch,
                                      std::int64_t seq);

}  // namespace tilecast::detail
