// Pieces of JSON requests shared by the API functions.
#pragma once

#include <nlohmann/json.hpp>

#include "tilecast/gpu_spec.hpp"
#include "tilecast/model_config.hpp"

namespace tilecast::detail {

// "gpu": a catalog name, or an inline spec object (catalog or dataset format).
GpuSpec request_gpu(const nlohmann::json& request);

// "model": a zoo name, or an inline Hugging Face config object.
ModelConfig request_model(const nlohmann::json& request);

}  // namespace tilecast::detail
