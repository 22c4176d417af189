// JSON API for the multi-GPU plan search (tilecast/parallel.hpp, docs/parallel.md).
#include <algorithm>
#include <nlohmann/json.hpp>

#include "api/request.hpp"
#include "common/json_fields.hpp"
#include "tilecast/api.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/parallel.hpp"
#include "tilecast/system.hpp"

namespace tilecast::api {
namespace {

constexpr const char* kOrigin = "plan request";

nlohmann::ordered_json entries(const std::vector<PlanEntry>& v, std::size_t top) {
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < std::min(top, v.size()); ++i) {
    const PlanEntry& e = v[i];
    a.push_back({{"dp", e.config.dp},
                 {"tp", e.config.tp},
                 {"pp", e.config.pp},
                 {"gpus", e.config.gpus()},
                 {"microbatches", e.config.microbatches},
                 {"zero", e.config.zero},
                 {"recompute", std::string(recompute_name(e.config.recompute))},
                 {"step_ms", e.step_ms},
                 {"tokens_per_s", e.tokens_per_s},
                 {"tokens_per_s_per_gpu", e.tokens_per_s_per_gpu},
                 {"bubble_fraction", e.bubble_fraction},
                 {"memory_gb", e.memory_gb},
                 {"capacity_gb", e.capacity_gb}});
  }
  return a;
}

}  // namespace

std::string plan_parallel(std::string_view request_json) {
  const nlohmann::json req = detail::parse_json(request_json, kOrigin);
  auto sys = req.find("system");
  if (sys == req.end() || sys->is_null()) throw Error("plan request: field 'system' is missing");
  SystemSpec system;
  if (sys->is_string())
    system = find_system(sys->get<std::string>());
  else if (sys->is_object())
    system = parse_system_spec(sys->dump(), "custom system");
  else
    throw Error("plan request: field 'system' must be a system name or a spec object");
  const GpuSpec gpu =
      detail::has_field(req, "gpu") ? detail::request_gpu(req) : find_gpu(system.gpu);
  const ModelConfig model = detail::request_model(req);
  PlanRequest q;
  q.global_batch = detail::integer_field(req, "global_batch", kOrigin, 1, 1LL << 31);
  q.seq = detail::has_field(req, "seq")
              ? detail::integer_field(req, "seq", kOrigin, 1, 1LL << 31)
              : std::min<std::int64_t>(model.max_positions > 0 ? model.max_positions : 2048, 2048);
  if (detail::has_field(req, "gpus"))
    q.gpus = int(detail::integer_field(req, "gpus", kOrigin, 1, 65536));
  if (detail::has_field(req, "max_microbatches"))
    q.max_microbatches = int(detail::integer_field(req, "max_microbatches", kOrigin, 1, 4096));
  q.dtype = detail::request_precision(req, gpu, kOrigin);
  const std::string pname = detail::string_field(req, "predictor", kOrigin, false);
  q.predictor = pname.empty() ? Predictor::tilecast : parse_predictor(pname);
  const std::size_t top = detail::has_field(req, "top")
                              ? std::size_t(detail::integer_field(req, "top", kOrigin, 1, 1000000))
                              : 20;
  const PlanResult r = plan_parallel(gpu, system, model, q);
  nlohmann::ordered_json j;
  j["system"] = system.id;
  j["gpu"] = {{"id", gpu.id}, {"name", gpu.name}};
  j["model"] = {{"id", model.id}, {"name", model.name}};
  j["global_batch"] = q.global_batch;
  j["seq"] = q.seq;
  j["precision"] = std::string(dtype_name(q.dtype));
  j["gpu_counts"] = r.gpu_counts;
  j["considered"] = r.considered;
  j["does_not_divide"] = r.does_not_divide;
  j["does_not_fit"] = r.does_not_fit;
  j["fitting"] = r.by_step.size();
  j["by_step"] = entries(r.by_step, top);
  j["by_tokens_per_gpu"] = entries(r.by_tokens_per_gpu, top);
  return j.dump(2);
}

}  // namespace tilecast::api
