// JSON API for capacity planning (api::plan_capacity; docs/serving-load.md, "Capacity").
#include "tilecast/capacity.hpp"

#include <nlohmann/json.hpp>

#include "api/request.hpp"
#include "api/serving_load.hpp"
#include "common/json_fields.hpp"
#include "tilecast/api.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"

namespace tilecast::detail {

CapacityRequest capacity_request_fields(const nlohmann::json& req, const ModelConfig& model) {
  constexpr const char* kOrigin = "capacity request";
  ServingRequest s;
  constexpr long long kMax = 1LL << 31;
  const bool trace = has_field(req, "trace");
  if (!trace && !has_field(req, "prompt"))
    throw Error("capacity request: field 'prompt' is missing");
  if (!trace && !has_field(req, "output"))
    throw Error("capacity request: field 'output' is missing");
  if (has_field(req, "prompt")) s.prompt = integer_field(req, "prompt", kOrigin, 1, kMax);
  if (has_field(req, "output")) s.output = integer_field(req, "output", kOrigin, 1, kMax);
  s.dtype = word_field(req, "precision", kOrigin, s.dtype, parse_dtype);
  // quantized serving (serve/quantize.hpp), as in a serving request
  if (!string_field(req, "kv_cache", kOrigin, false).empty())
    s.kv_cache = word_field(req, "kv_cache", kOrigin, DataType::bf16, parse_dtype);
  s.weights = word_field(req, "weights", kOrigin, checkpoint_weight_format(model, s.dtype),
                         parse_weight_format);
  s.decode_attention =
      word_field(req, "decode_attention", kOrigin, s.decode_attention, parse_decode_attention);
  s.predictor = word_field(req, "predictor", kOrigin, s.predictor, parse_predictor);
  for (const char* f : {"concurrency", "batch", "tp", "ep"})
    if (has_field(req, f))
      throw Error(std::string(kOrigin) + ": field '" + f +
                  "' is not taken: the plan tries tensor-parallel sizes (and a mixture's "
                  "expert-parallel sizes) and replica counts at Poisson arrivals");
  CapacityRequest r;
  nlohmann::json load = req;
  if (!has_field(load, "requests")) load["requests"] = 1000;
  if (!has_field(req, "qps")) throw Error("capacity request: field 'qps' is missing");
  r.load = load_request_fields(load, s, kOrigin);
  r.load.slo_ttft_ms = r.load.slo_tpot_ms = 0;
  r.qps = number_field(req, "qps", kOrigin, 1e-6, 1e6);
  if (!has_field(req, "slo_ttft_ms") || !has_field(req, "slo_tpot_ms"))
    throw Error("capacity request: fields 'slo_ttft_ms' and 'slo_tpot_ms' are both required");
  r.slo_ttft_ms = number_field(req, "slo_ttft_ms", kOrigin, 1e-6, 1e9);
  r.slo_tpot_ms = number_field(req, "slo_tpot_ms", kOrigin, 1e-6, 1e9);
  if (has_field(req, "max_gpus"))
    r.max_gpus = int(integer_field(req, "max_gpus", kOrigin, 1, 1024));
  if (has_field(req, "price_per_gpu_hour")) {
    const auto& p = req["price_per_gpu_hour"];
    if (p.is_array()) {
      for (std::size_t i = 0; i < p.size() && i < 16; ++i) {
        nlohmann::json one = {{"price_per_gpu_hour", p[i]}};
        r.price_per_gpu_hour.push_back(*request_price(one, kOrigin));
      }
    } else {
      r.price_per_gpu_hour.push_back(*request_price(req, kOrigin));
    }
  }
  return r;
}

// "gpu": a name, a spec, or an array of them.
std::vector<GpuSpec> capacity_gpus(const nlohmann::json& req) {
  auto it = req.find("gpu");
  if (it == req.end() || !it->is_array()) return {request_gpu(req)};
  if (it->empty() || it->size() > 16)
    throw Error("capacity request: field 'gpu' must list 1 to 16 GPUs");
  std::vector<GpuSpec> out;
  for (const auto& g : *it) out.push_back(request_gpu(nlohmann::json{{"gpu", g}}));
  return out;
}

}  // namespace tilecast::detail

namespace tilecast::api {

std::string plan_capacity_with_progress(std::string_view request_json,
                                        const std::function<void(const std::string&)>& progress) {
  const nlohmann::json req = detail::parse_json(request_json, "capacity request");
  const std::vector<GpuSpec> gpus = detail::capacity_gpus(req);
  const ModelConfig model = detail::request_model(req);
  const CapacityRequest r = detail::capacity_request_fields(req, model);
  return capacity_plan_to_json(model, tilecast::plan_capacity(gpus, model, r, progress));
}

std::string plan_capacity(std::string_view request_json) {
  return plan_capacity_with_progress(request_json, {});
}

}  // namespace tilecast::api
