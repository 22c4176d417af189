// JSON API for the multi-GPU plan search (tilecast/parallel.hpp, docs/parallel.md).
#include <algorithm>
#include <nlohmann/json.hpp>

#include "api/request.hpp"
#include "common/json_fields.hpp"
#include "tilecast/api.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/megatron.hpp"
#include "tilecast/op_graph.hpp"
#include "tilecast/parallel.hpp"
#include "tilecast/system.hpp"

namespace tilecast::api {
namespace {

constexpr const char* kPlanOrigin = "plan request";

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

// "engine": "megatron": the megatron engine's search (tilecast/megatron.hpp, docs/megatron.md)
std::string plan_megatron_json(const nlohmann::json& req, const SystemSpec& system,
                               const GpuSpec& gpu, const ModelConfig& model) {
  using detail::has_field;
  using detail::integer_field;
  MegatronPlanRequest q;
  if (!has_field(req, "gpus"))
    throw Error("plan request: field 'gpus' is required with engine megatron (the GPUs to split)");
  q.gpus = int(integer_field(req, "gpus", kPlanOrigin, 1, 65536));
  q.global_batch = integer_field(req, "global_batch", kPlanOrigin, 1, 1LL << 31);
  q.seq = has_field(req, "seq") ? integer_field(req, "seq", kPlanOrigin, 1, 1LL << 31) : 2048;
  const std::string word = detail::string_field(req, "precision", kPlanOrigin, false);
  try {
    q.dtype = word.empty() ? DataType::bf16 : parse_dtype(word);
    q.attention =
        parse_attention_kernel(detail::string_field(req, "attention", kPlanOrigin, false));
  } catch (const Error& e) {
    throw Error(std::string(kPlanOrigin) + ": " + e.what());
  }
  if (has_field(req, "max_microbatch_size"))
    q.max_microbatch_size = int(integer_field(req, "max_microbatch_size", kPlanOrigin, 1, 1024));
  if (has_field(req, "max_virtual_stages"))
    q.max_virtual_stages = int(integer_field(req, "max_virtual_stages", kPlanOrigin, 1, 64));
  if (has_field(req, "max_cp")) q.max_cp = int(integer_field(req, "max_cp", kPlanOrigin, 1, 1024));
  const std::string pname = detail::string_field(req, "predictor", kPlanOrigin, false);
  q.predictor = pname.empty() ? Predictor::tilecast : parse_predictor(pname);
  q.top =
      has_field(req, "top") ? std::size_t(integer_field(req, "top", kPlanOrigin, 1, 1000000)) : 20;
  const MegatronPlanResult r = plan_megatron(gpu, system, model, q);
  nlohmann::ordered_json j;
  j["engine"] = kMegatronEngine;
  j["system"] = system.id;
  j["gpu"] = {{"id", gpu.id}, {"name", gpu.name}};
  j["model"] = {{"id", model.id}, {"name", model.name}};
  j["gpus"] = q.gpus;
  j["global_batch"] = q.global_batch;
  j["seq"] = q.seq;
  j["precision"] = std::string(dtype_name(q.dtype));
  j["attention"] = std::string(attention_kernel_name(q.attention));
  j["considered"] = r.considered;
  j["does_not_divide"] = r.does_not_divide;
  j["does_not_fit"] = r.does_not_fit;
  j["fitting"] = r.fitting;
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (const MegatronPlanEntry& e : r.by_step) {
    const MegatronConfig& c = e.config;
    const MegatronBreakdown& b = e.breakdown;
    a.push_back({{"dp", c.dp},
                 {"tp", c.tp},
                 {"pp", c.pp},
                 {"cp", c.cp},
                 {"ep", c.ep},
                 {"virtual_stages", c.virtual_stages},
                 {"microbatches", c.microbatches},
                 {"microbatch_size", e.micro_batch},
                 {"sequence_parallel", c.sequence_parallel},
                 {"recompute", std::string(recompute_name(c.recompute))},
                 {"step_ms", e.step_ms},
                 {"tokens_per_s_per_gpu", e.tokens_per_s_per_gpu},
                 {"mfu", e.mfu},
                 {"memory_gb", e.memory_gb},
                 {"capacity_gb", e.capacity_gb},
                 {"breakdown_ms",
                  {{"compute", b.compute_ms},
                   {"recompute", b.recompute_ms},
                   {"tp_comm", b.tp_comm_ms},
                   {"pp_comm", b.pp_comm_ms},
                   {"dp_comm", b.dp_comm_ms},
                   {"bubble", b.bubble_ms},
                   {"optimizer", b.optimizer_ms}}}});
  }
  j["by_step"] = a;
  return j.dump(2);
}

// The system named, else the one the GPU's `gpus` run on (system_for_gpus); without `gpus`, its
// catalog system's node or the largest node its catalog links build.
SystemSpec plan_system(const nlohmann::json& req) {
  if (auto s = detail::request_system(req, kPlanOrigin)) return *s;
  if (!detail::has_field(req, "gpu"))
    throw Error(
        "plan request: give field 'system' or 'gpu' (the system is then the one the GPU's "
        "catalog entry builds)");
  const GpuSpec gpu = detail::request_gpu(req);
  const std::int64_t gpus = detail::has_field(req, "gpus")
                                ? detail::integer_field(req, "gpus", kPlanOrigin, 1, 65536)
                            : default_system_for(gpu, 1) ? 1
                                                         : kMaxBuiltNodeGpus;
  if (auto s = system_for_gpus(gpu, gpus)) return *s;
  throw Error("plan request: " + no_system_for(gpu, gpus) +
              "; give field 'system' (a catalog system's id or a system spec object)");
}

}  // namespace

std::string plan_parallel(std::string_view request_json) {
  const nlohmann::json req = detail::parse_json(request_json, kPlanOrigin);
  const SystemSpec system = plan_system(req);
  const GpuSpec gpu =
      detail::has_field(req, "gpu") ? detail::request_gpu(req) : find_gpu(system.gpu);
  const ModelConfig model = detail::request_model(req);
  const std::string engine = detail::choice_field(
      req, "engine", kPlanOrigin, {engine_name(Engine::eager), kMegatronEngine}, false);
  if (engine == kMegatronEngine) return plan_megatron_json(req, system, gpu, model);
  for (const char* f : {"attention", "max_microbatch_size", "max_virtual_stages", "max_cp"})
    if (detail::has_field(req, f))
      throw Error(std::string("plan request: field '") + f + "' applies to engine megatron");
  PlanRequest q;
  q.global_batch = detail::integer_field(req, "global_batch", kPlanOrigin, 1, 1LL << 31);
  q.seq = detail::has_field(req, "seq")
              ? detail::integer_field(req, "seq", kPlanOrigin, 1, 1LL << 31)
              : std::min<std::int64_t>(model.max_positions > 0 ? model.max_positions : 2048, 2048);
  if (detail::has_field(req, "gpus"))
    q.gpus = int(detail::integer_field(req, "gpus", kPlanOrigin, 1, 65536));
  if (detail::has_field(req, "max_microbatches"))
    q.max_microbatches = int(detail::integer_field(req, "max_microbatches", kPlanOrigin, 1, 4096));
  q.dtype = detail::request_precision(req, gpu, kPlanOrigin);
  const std::string pname = detail::string_field(req, "predictor", kPlanOrigin, false);
  q.predictor = pname.empty() ? Predictor::tilecast : parse_predictor(pname);
  const std::size_t top =
      detail::has_field(req, "top")
          ? std::size_t(detail::integer_field(req, "top", kPlanOrigin, 1, 1000000))
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
