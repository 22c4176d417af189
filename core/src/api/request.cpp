#include "api/request.hpp"

#include <algorithm>

#include "common/json_fields.hpp"
#include "tilecast/enum_names.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/model_zoo.hpp"

namespace tilecast::detail {

GpuSpec request_gpu(const nlohmann::json& request) {
  auto it = request.find("gpu");
  if (it == request.end() || it->is_null()) throw Error("request: field 'gpu' is missing");
  if (it->is_string()) return find_gpu(it->get<std::string>());
  if (it->is_object()) return parse_gpu_spec(it->dump(), "custom GPU");
  throw Error("request: field 'gpu' must be a catalog name or a spec object");
}

ModelConfig request_model(const nlohmann::json& req) {
  auto it = req.find("model");
  if (it == req.end() || it->is_null()) throw Error("model request: field 'model' is missing");
  if (it->is_string()) return find_model(it->get<std::string>());
  if (it->is_object() && it->contains("sizes"))
    return model_from_sizes((*it)["sizes"].dump(), "model request: field 'model.sizes'");
  if (it->is_object()) return parse_model_config(it->dump(), "model config");
  throw Error(
      "model request: field 'model' must be a zoo name, a Hugging Face config object or "
      "{\"sizes\": {...}}");
}

std::optional<SystemSpec> request_system(const nlohmann::json& req, const char* what) {
  auto it = req.find("system");
  if (it == req.end() || it->is_null()) return std::nullopt;
  if (it->is_string()) return system_named(it->get<std::string>());
  if (it->is_object()) return parse_system_spec(it->dump(), "custom system");
  throw Error(std::string(what) + ": field 'system' must be a system name or a spec object");
}

DataType request_precision(const nlohmann::json& req, const GpuSpec& gpu, const char* what) {
  const std::string word = string_field(req, "precision", what, false);
  if (word.empty()) return DataType::fp32;
  DataType t = DataType::fp32;
  try {
    t = parse_dtype(word);
  } catch (const Error& e) {
    throw Error(std::string(what) + ": field 'precision': " + e.what());
  }
  if (std::find(std::begin(kModelPrecisions), std::end(kModelPrecisions), t) ==
      std::end(kModelPrecisions))
    throw Error(std::string(what) + ": field 'precision' is '" + word +
                "'; allowed: " + enum_names_of(dtype_names(), kModelPrecisions, ", "));
  require_precision(gpu, t);
  return t;
}

std::optional<double> request_price(const nlohmann::json& req, const char* what) {
  if (!has_field(req, "price_per_gpu_hour")) return std::nullopt;
  return number_field(req, "price_per_gpu_hour", what, 1e-9, 1e6);
}

}  // namespace tilecast::detail
