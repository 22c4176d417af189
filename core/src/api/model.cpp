// JSON API for whole-model forecasts: the zoo, config validation, forecasts.
#include <nlohmann/json.hpp>

#include "api/request.hpp"
#include "common/json_fields.hpp"
#include "tilecast/api.hpp"
#include "tilecast/error.hpp"
#include "tilecast/model_forecast.hpp"
#include "tilecast/model_zoo.hpp"

namespace tilecast::api {
namespace {

constexpr const char* kOrigin = "model request";

nlohmann::ordered_json model_summary(const ModelConfig& m) {
  nlohmann::ordered_json j;
  j["id"] = m.id;
  j["name"] = m.name;
  j["architecture"] = std::string(architecture_name(m.architecture));
  j["model_type"] = m.model_type;
  j["layers"] = m.num_layers + m.num_decoder_layers;
  j["hidden_size"] = m.hidden_size;
  j["params_b"] = m.params() / 1e9;
  j["source"] = m.source;
  return j;
}

}  // namespace

std::string list_models() {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& m : model_zoo()) list.push_back(model_summary(m));
  return list.dump();
}

std::string validate_model(std::string_view config_json) {
  const ModelConfig m = parse_model_config(config_json, "model config");
  nlohmann::ordered_json j;
  j["ok"] = true;
  j["architecture"] = std::string(architecture_name(m.architecture));
  j["model_type"] = m.model_type;
  j["name"] = m.name;
  j["layers"] = m.num_layers + m.num_decoder_layers;
  j["hidden_size"] = m.hidden_size;
  j["heads"] = m.num_heads;
  j["kv_heads"] = m.num_kv_heads;
  j["intermediate_size"] = m.intermediate_size;
  j["vocab_size"] = m.vocab_size;
  j["params_b"] = m.params() / 1e9;
  return j.dump();
}

std::string forecast_model(std::string_view request_json) {
  const nlohmann::json req = detail::parse_json(request_json, kOrigin);
  const GpuSpec gpu = detail::request_gpu(req);
  const ModelConfig model = detail::request_model(req);
  const std::int64_t batch = detail::integer_field(req, "batch", kOrigin, 1, 1LL << 31);
  const std::int64_t seq = detail::integer_field(req, "seq", kOrigin, 1, 1LL << 31);
  const std::string mode_word = detail::string_field(req, "mode", kOrigin, false);
  Mode mode = Mode::inference;
  try {
    if (!mode_word.empty()) mode = parse_mode(mode_word);
  } catch (const Error& e) {
    throw Error(std::string("model request: field 'mode': ") + e.what());
  }
  std::int64_t cache = 0;
  if (detail::has_field(req, "context")) {
    if (mode != Mode::decode)
      throw Error("model request: field 'context' (the cache length) applies to mode decode only");
    cache = detail::integer_field(req, "context", kOrigin, 1, 1LL << 31);
  }
  Workload w = make_workload(mode, batch, seq, cache);
  const std::string precision = detail::string_field(req, "precision", kOrigin, false);
  if (!precision.empty()) {
    try {
      w.dtype = parse_dtype(precision);
    } catch (const Error& e) {
      throw Error(std::string("model request: field 'precision': ") + e.what());
    }
    if (w.dtype != DataType::fp32 && w.dtype != DataType::fp16 && w.dtype != DataType::bf16)
      throw Error("model request: field 'precision' is '" + precision +
                  "'; allowed: fp32, fp16, bf16");
    require_precision(gpu, w.dtype);
  }
  const std::string pname = detail::string_field(req, "predictor", kOrigin, false);
  const Predictor predictor = pname.empty() ? Predictor::tilecast : parse_predictor(pname);
  const std::string engine_word = detail::string_field(req, "engine", kOrigin, false);
  Engine engine = Engine::eager;
  try {
    if (!engine_word.empty()) engine = parse_engine(engine_word);
  } catch (const Error& e) {
    throw Error(std::string("model request: field 'engine': ") + e.what());
  }
  if (engine == Engine::fused)
    throw Error(
        "model request: field 'engine': 'fused' is the serving engine (forecast_serving, "
        "`tilecast serve`); allowed here: eager, compiled");
  const OpGraph graph = build_engine_graph(model, w, engine);
  ModelForecast f = forecast_graph(gpu, graph, w, predictor);
  f.engine = engine;
  const double roof = predictor == Predictor::roofline
                          ? f.latency_ms
                          : forecast_graph(gpu, graph, w, Predictor::roofline).latency_ms;
  return model_forecast_to_json(gpu, model, f, roof);
}

}  // namespace tilecast::api
