// The serving forecast as the API's JSON (api::forecast_serving, docs/serving.md).
#include <nlohmann/json.hpp>

#include "forecast/model_json.hpp"
#include "tilecast/serving.hpp"

namespace tilecast {

void detail::write_serving_options(nlohmann::ordered_json& j, const ServingRequest& r) {
  if (r.kv_cache) j["kv_cache"] = std::string(dtype_name(*r.kv_cache));
  if (r.weights != WeightFormat::native) j["weights"] = std::string(weight_format_name(r.weights));
  if (r.decode_attention != DecodeAttention::grouped)
    j["decode_attention"] = std::string(decode_attention_name(r.decode_attention));
}

nlohmann::ordered_json detail::serving_forecast_json(const GpuSpec& gpu, const ModelConfig& model,
                                                     const ServingForecast& f) {
  const ServingRequest& r = f.request;
  nlohmann::ordered_json j = detail::forecast_response_head(gpu, model);
  j["prompt"] = r.prompt;
  j["output"] = r.output;
  j["batch"] = r.batch;
  j["tp"] = r.tp;
  j["precision"] = std::string(dtype_name(r.dtype));
  detail::write_serving_options(j, r);
  j["engine"] = std::string(engine_name(r.engine));
  j["predictor"] = std::string(predictor_name(r.predictor));
  j["footing"] = std::string(footing_name(f.footing));
  j["prefill_ms"] = f.prefill_ms;
  j["decode_ms_per_token"] = f.decode_ms_per_token;
  nlohmann::ordered_json at = nlohmann::ordered_json::object();
  for (const auto& [context, ms] : f.decode_ms_at) at[std::to_string(context)] = ms;
  j["decode_ms_at"] = at;
  j["decode_ms_at_counts"] = "tokens already in the KV cache when the step runs";
  j["decode_total_ms"] = f.decode_total_ms;
  j["total_ms"] = f.total_ms;
  j["tokens_per_s"] = f.tokens_per_s;
  // the 80% band, multipliers of every latency above; null for the roofline predictor
  j["band"] = f.band ? nlohmann::ordered_json{{"low", f.band->low}, {"high", f.band->high}}
                     : nlohmann::ordered_json(nullptr);
  j["comm_ms"] = f.comm_ms;
  if (!f.comm_model.empty()) j["comm_model"] = f.comm_model;
  j["kv_cache_bytes_per_token"] = f.kv_cache_bytes_per_token;
  j["memory"] = {{"weights_gb", f.memory.weights_gb},
                 {"kv_cache_gb", f.memory.kv_cache_gb},
                 {"activations_gb", f.memory.activations_gb},
                 {"context_gb", f.memory.context_gb},
                 {"total_gb", f.memory.total_gb},
                 {"capacity_gb", f.memory.capacity_gb},
                 {"fits", f.memory.fits}};
  j["max_batch"] = f.max_batch;
  j["max_context"] = f.max_context;
  j["model_context"] = model.max_context;
  j["caveats"] = f.caveats;
  return j;
}

std::string serving_forecast_to_json(const GpuSpec& gpu, const ModelConfig& model,
                                     const ServingForecast& f) {
  return detail::serving_forecast_json(gpu, model, f).dump(2);
}

}  // namespace tilecast
