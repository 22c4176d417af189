// Pieces of JSON requests shared by the API functions.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "common/json_fields.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_spec.hpp"
#include "tilecast/model_config.hpp"
#include "tilecast/precision.hpp"
#include "tilecast/system.hpp"

namespace tilecast::detail {

// A word field read by `parse` (e.g. parse_dtype), or `fallback` when it is absent or empty; a
// word `parse` refuses throws Error "<origin>: field '<field>': <parse's message>".
template <class T, class Parse>
T word_field(const nlohmann::json& req, const char* field, std::string_view origin, T fallback,
             Parse parse) {
  const std::string word = string_field(req, field, origin, false);
  if (word.empty()) return fallback;
  try {
    return parse(word);
  } catch (const Error& e) {
    throw Error(std::string(origin) + ": field '" + field + "': " + e.what());
  }
}

// "gpu": a catalog name, or an inline spec object (catalog or dataset format).
GpuSpec request_gpu(const nlohmann::json& request);

// "model": a zoo name, or an inline Hugging Face config object.
ModelConfig request_model(const nlohmann::json& request);

// "system": a catalog system name or a spec object; nullopt when absent. `what` names the
// request in errors ("plan request").
std::optional<SystemSpec> request_system(const nlohmann::json& request, const char* what);

// "precision" of a model forecast or plan: fp32 (when absent), fp16 or bf16 (training: autocast),
// one the GPU has. `what` names the request in errors ("model request").
DataType request_precision(const nlohmann::json& request, const GpuSpec& gpu, const char* what);

// "price_per_gpu_hour": one price above 0 and at most 1e6 (any currency), as the capacity
// request takes it; nullopt when absent. `what` names the request in errors.
std::optional<double> request_price(const nlohmann::json& request, const char* what);

// A forecast response's "cost" at `price` per GPU hour on `gpus` GPUs: per hour, and per million
// of the tokens `tokens_per_s` counts (`tokens_counted` says which); training adds the step's
// cost and, given a token count (`tokens` > 0), the run's (api/cost.cpp).
nlohmann::ordered_json cost_json(double price, std::int64_t gpus, double tokens_per_s,
                                 const char* tokens_counted);
void add_training_cost(nlohmann::ordered_json& cost, double price, std::int64_t gpus,
                       double step_ms, double tokens_per_step, double tokens);

}  // namespace tilecast::detail
