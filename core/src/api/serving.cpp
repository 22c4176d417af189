// JSON API for serving forecasts (api::forecast_serving; docs/serving.md).
#include "tilecast/serving.hpp"

#include <nlohmann/json.hpp>

#include "api/request.hpp"
#include "api/serving_load.hpp"
#include "common/json_fields.hpp"
#include "forecast/model_json.hpp"
#include "serve/decode_operators.hpp"
#include "tilecast/api.hpp"
#include "tilecast/error.hpp"
#include "tilecast/serving_load.hpp"

namespace tilecast::api {
namespace {

constexpr const char* kServingOrigin = "serving request";

}  // namespace

std::string forecast_serving(std::string_view request_json) {
  const nlohmann::json req = detail::parse_json(request_json, kServingOrigin);
  const GpuSpec gpu = detail::request_gpu(req);
  const ModelConfig model = detail::request_model(req);
  ServingRequest r;
  constexpr long long kMax = 1LL << 31;
  const bool load = detail::is_load_request(req);
  const bool lengths = !load || !detail::has_field(req, "trace");  // a trace has its own
  if (lengths && !detail::has_field(req, "prompt"))
    throw Error("serving request: field 'prompt' is missing");
  if (lengths && !detail::has_field(req, "output"))
    throw Error("serving request: field 'output' is missing");
  if (detail::has_field(req, "prompt"))
    r.prompt = detail::integer_field(req, "prompt", kServingOrigin, 1, kMax);
  if (detail::has_field(req, "output"))
    r.output = detail::integer_field(req, "output", kServingOrigin, 1, kMax);
  r.batch = detail::has_field(req, "batch")
                ? detail::integer_field(req, "batch", kServingOrigin, 1, kMax)
                : 1;
  r.tp = detail::has_field(req, "tp")
             ? int(detail::integer_field(req, "tp", kServingOrigin, 1, 1024))
             : 1;
  if (detail::has_field(req, "ep"))
    r.ep = int(detail::integer_field(req, "ep", kServingOrigin, 1, 1024));
  r.dtype = detail::word_field(req, "precision", kServingOrigin, DataType::bf16, parse_dtype);
  if (detail::has_field(req, "kv_cache"))
    r.kv_cache = detail::word_field(req, "kv_cache", kServingOrigin, DataType::bf16, parse_dtype);
  r.weights = detail::word_field(req, "weights", kServingOrigin,
                                 checkpoint_weight_format(model, r.dtype), parse_weight_format);
  r.decode_attention = detail::word_field(req, "decode_attention", kServingOrigin,
                                          DecodeAttention::grouped, parse_decode_attention);
  r.engine = detail::word_field(req, "engine", kServingOrigin, Engine::fused, parse_engine);
  r.predictor =
      detail::word_field(req, "predictor", kServingOrigin, Predictor::tilecast, parse_predictor);
  const std::optional<double> price = detail::request_price(req, kServingOrigin);
  if (load) {
    if (detail::has_field(req, "batch"))
      throw Error(
          "serving request: field 'batch' is for a static batch; a simulation under "
          "load batches its requests itself (max_seqs, max_batch_tokens)");
    const LoadRequest lr = detail::load_request_fields(req, r, kServingOrigin);
    const LoadForecast f = simulate_serving(gpu, model, lr);
    auto j = detail::load_forecast_json(gpu, model, f);
    if (!price) return j.dump(2);
    j["cost"] = detail::cost_json(*price, r.gpus(), f.output_tokens_per_s,
                                  "output tokens over the simulated load");
    return j.dump(2);
  }
  detail::refuse_load_fields(req, kServingOrigin);
  const ServingForecast f = forecast_serving(gpu, model, r);
  auto j = detail::serving_forecast_json(gpu, model, f);
  // where the first decode step's time goes: the fused engine's kernels, shares of that step
  // (its all-reduces and the sampler the rest; serve/decode_operators.hpp)
  if (r.engine == Engine::fused) {
    const auto& [cached, step_ms] = f.decode_ms_at.front();
    j["decode_operators"] =
        detail::operators_json(detail::decode_step_operators(gpu, model, r, cached), step_ms);
  }
  if (!price) return j.dump(2);
  // the request's output tokens over its whole time, prefill included
  const double output_per_s = double(r.batch) * double(r.output) / (f.total_ms / 1e3);
  j["cost"] =
      detail::cost_json(*price, r.tp, output_per_s,
                        "output tokens: batch x output over the request, prefill and decode");
  return j.dump(2);
}

}  // namespace tilecast::api
