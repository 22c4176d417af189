// Pieces of JSON requests shared by the API functions.
#pragma once

#include <nlohmann/json.hpp>

#include "tilecast/gpu_spec.hpp"
#include "tilecast/model_config.hpp"
#include "tilecast/precision.hpp"

namespace tilecast::detail {

// "gpu": a catalog name, or an inline spec object (catalog or dataset format).
GpuSpec request_gpu(const nlohmann::json& request);

// "model": a zoo name, or an inline Hugging Face config object.
ModelConfig request_model(const nlohmann::json& request);

// "precision" of a model forecast or plan: fp32 (when absent), fp16 or bf16 (training: autocast),
// one the GPU has. `what` names the request in errors ("model request").
DataType request_precision(const nlohmann::json& request, const GpuSpec& gpu, const char* what);

}  // namespace tilecast::detail
