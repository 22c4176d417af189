// forecast_model with "engine": "megatron": the request's fields into a MegatronConfig, the
// system (a catalog name, a spec object, or the catalog system built from the GPU), the
// forecast as JSON. Fields: precision (bf16 default, fp16, fp8: TransformerEngine FP8), gpus, dp,
// tp, pp, cp, ep, microbatches, virtual_stages, sequence_parallel, recompute, attention,
// distributed_optimizer, overlap_grad_reduce, tokens, system.
#include "tilecast/megatron.hpp"

#include "api/megatron_request.hpp"
#include "api/request.hpp"
#include "common/checked.hpp"
#include "common/json_fields.hpp"
#include "forecast/model_json.hpp"
#include "tilecast/error.hpp"
#include "tilecast/parallel.hpp"

namespace tilecast::detail {
namespace {

constexpr const char* kMegatronOrigin = "model request";

}  // namespace

std::string forecast_megatron_request(const nlohmann::json& req, const GpuSpec& gpu,
                                      const ModelConfig& model, Mode mode, std::int64_t batch,
                                      std::int64_t seq) {
  if (mode != Mode::training)
    throw Error(
        "model request: field 'engine': megatron forecasts training; set 'mode' to "
        "training");
  Workload w = make_workload(Mode::training, batch, seq);
  w.dtype = word_field(req, "precision", kMegatronOrigin, DataType::bf16, parse_dtype);
  MegatronConfig c;
  auto opt_int = [&](const char* name, int fallback) {
    return has_field(req, name) ? int(integer_field(req, name, kMegatronOrigin, 1, 65536))
                                : fallback;
  };
  c.tp = opt_int("tp", 1);
  c.pp = opt_int("pp", 1);
  c.cp = opt_int("cp", 1);
  c.ep = opt_int("ep", 1);
  const bool has_gpus = has_field(req, "gpus");
  const int gpus = opt_int("gpus", 0);
  const std::int64_t tppcp = checked_mul(checked_mul(c.tp, c.pp, "tp x pp"), c.cp, "tp x pp x cp");
  if (has_field(req, "dp")) {
    c.dp = opt_int("dp", 1);
  } else if (has_gpus) {
    if (gpus % tppcp != 0)
      throw Error("model request: gpus " + std::to_string(gpus) +
                  " is not a multiple of tp x pp x cp = " + std::to_string(tppcp));
    c.dp = int(gpus / tppcp);
  }
  if (has_gpus && c.gpus() != gpus)
    throw Error("model request: dp x tp x pp x cp = " + std::to_string(c.dp) + " x " +
                std::to_string(c.tp) + " x " + std::to_string(c.pp) + " x " + std::to_string(c.cp) +
                " = " + std::to_string(c.gpus()) + ", not gpus " + std::to_string(gpus));
  c.microbatches = opt_int("microbatches", 1);
  c.virtual_stages = opt_int("virtual_stages", 1);
  c.sequence_parallel = detail::bool_field(req, "sequence_parallel", kMegatronOrigin, false);
  c.distributed_optimizer = detail::bool_field(req, "distributed_optimizer", kMegatronOrigin, true);
  c.overlap_grad_reduce = detail::bool_field(req, "overlap_grad_reduce", kMegatronOrigin, true);
  if (has_field(req, "tokens")) c.tokens = number_field(req, "tokens", kMegatronOrigin, 1, 1e18);
  c.recompute = word_field(req, "recompute", kMegatronOrigin, Recompute::none, parse_recompute);
  c.attention =
      word_field(req, "attention", kMegatronOrigin, AttentionKernel::flash, parse_attention_kernel);
  for (const char* f : {"zero", "schedule", "bucket_mb"})
    if (has_field(req, f))
      throw Error(std::string(kMegatronOrigin) + ": field '" + f +
                  "' is for the eager engine; the megatron engine uses distributed_optimizer, "
                  "virtual_stages and Megatron's buckets");
  const std::string pname = string_field(req, "predictor", kMegatronOrigin, false);
  const Predictor predictor = pname.empty() ? Predictor::tilecast : parse_predictor(pname);
  SystemSpec system;
  if (auto s = request_system(req, kMegatronOrigin)) {
    system = *s;
  } else if (auto d = system_for_gpus(gpu, c.gpus())) {
    system = *d;
  } else {
    throw Error("model request: " + no_system_for(gpu, c.gpus()) +
                "; give field 'system' (a catalog system's id or a system spec object with "
                "enough max_nodes)");
  }
  const std::optional<double> price = request_price(req, kMegatronOrigin);
  const MegatronForecast f = forecast_megatron(gpu, system, model, w, c, predictor);
  auto j = megatron_forecast_json(gpu, model, f);
  if (!price) return j.dump(2);
  j["cost"] = cost_json(*price, c.gpus(), f.tokens_per_s, "tokens trained (batch x seq per step)");
  add_training_cost(j["cost"], *price, c.gpus(), f.step_ms, double(w.batch) * double(w.query_len),
                    c.tokens);
  return j.dump(2);
}

}  // namespace tilecast::detail
