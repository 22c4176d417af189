// The multi-GPU training forecast as the JSON object the CLI (--json) and the binding share.
#include <nlohmann/json.hpp>

#include "forecast/model_json.hpp"
#include "parallel/parallel.hpp"
#include "tilecast/footing.hpp"
#include "tilecast/forecast_caveats.hpp"
#include "tilecast/parallel.hpp"
#include "tilecast/precision.hpp"

namespace tilecast {

namespace detail {
nlohmann::ordered_json training_response_head(const GpuSpec& gpu, const ModelConfig& model,
                                              const Workload& w, Predictor predictor,
                                              const std::vector<std::string>& roofline_fallbacks,
                                              const std::vector<std::string>& transfers_used) {
  nlohmann::ordered_json j = detail::forecast_response_head(gpu, model);
  j["mode"] = std::string(mode_name(w.mode));
  j["batch"] = w.batch;
  j["seq"] = w.query_len;
  j["precision"] = std::string(dtype_name(w.dtype));
  j["predictor"] = std::string(predictor_name(predictor));
  j["footing"] = std::string(footing_name(
      forecast_footing(gpu, predictor, w.dtype, !roofline_fallbacks.empty(), &transfers_used)));
  return j;
}
}  // namespace detail

nlohmann::ordered_json detail::parallel_forecast_json(const GpuSpec& gpu, const ModelConfig& model,
                                                      const ParallelForecast& f) {
  using J = nlohmann::ordered_json;
  J j = detail::training_response_head(gpu, model, f.workload, f.predictor, f.roofline_fallbacks,
                                       f.transfers_used);
  const ParallelConfig& c = f.config;
  j["parallel"] = {{"gpus", c.gpus()},
                   {"dp", c.dp},
                   {"tp", c.tp},
                   {"pp", c.pp},
                   {"microbatches", c.microbatches},
                   {"microbatch_size", f.microbatch},
                   {"zero", c.zero},
                   {"recompute", std::string(recompute_name(c.recompute))},
                   {"schedule", std::string(schedule_name(c.schedule))},
                   {"bucket_mb", c.bucket_mb},
                   {"system", f.system}};
  if (c.engine != Engine::eager) j["parallel"]["engine"] = std::string(engine_name(c.engine));
  j["latency_ms"] = f.step_ms;
  j["step_ms"] = f.step_ms;
  // the 80% band; null for the roofline predictor (docs/parallel.md, "80% band")
  detail::write_band_ms(j, f.band_low_ms, f.band_high_ms);
  j["forward_ms"] = f.forward_ms;
  j["backward_ms"] = f.backward_ms;
  j["bubble_fraction"] = f.bubble_fraction;
  j["samples_per_s"] = f.samples_per_s;
  j["tokens_per_s"] = f.tokens_per_s;
  j["tokens_per_s_per_gpu"] = f.tokens_per_s_per_gpu;
  detail::add_utilization(j, gpu, model, f.workload, f.step_ms, c.gpus());
  J b;
  for (int k = 0; k < kOpKindCount; ++k)
    b[std::string(op_kind_name(static_cast<OpKind>(k)))] = f.breakdown_ms[k];
  b["communication"] = f.communication_ms;
  b["bubble"] = f.bubble_ms;
  j["breakdown"] = b;
  J stages = J::array();
  for (const auto& s : f.stages) {
    auto spans = [](const std::vector<StreamSpan>& v) {
      J a = J::array();
      for (const auto& sp : v)
        a.push_back({{"what", sp.what},
                     {"microbatch", sp.microbatch},
                     {"start_ms", sp.start_ms},
                     {"finish_ms", sp.finish_ms}});
      return a;
    };
    J stage = {{"stage", s.stage},
               {"compute_busy_ms", s.compute_busy_ms},
               {"comm_busy_ms", s.comm_busy_ms},
               {"exposed_comm_ms", s.exposed_comm_ms},
               {"bubble_ms", s.bubble_ms},
               {"compute", spans(s.compute)},
               {"communication", spans(s.comm)}};
    // only when spans were left out: how many ran, so a reader knows the lists are a sample
    if (std::int64_t(s.compute.size()) != s.compute_spans ||
        std::int64_t(s.comm.size()) != s.comm_spans) {
      stage["compute_spans"] = s.compute_spans;
      stage["communication_spans"] = s.comm_spans;
    }
    stages.push_back(std::move(stage));
  }
  j["stages"] = stages;
  j["memory"] = detail::memory_json(f.memory);
  j["params_b"] = f.params / 1e9;
  if (const ParamGathers& pg = f.param_gathers; pg.gathers > 0)
    j["param_gathers"] = {
        {"prefetched", c.zero3_prefetch},          {"gathers", pg.gathers},
        {"gathered_gb", pg.gathered_gb},           {"received_gb_per_gpu", pg.received_gb_per_gpu},
        {"largest_layer_gb", pg.largest_layer_gb}, {"busy_ms", pg.busy_ms}};
  j["assumptions"] = f.assumptions;
  std::vector<std::string> caveats =
      forecast_caveats(gpu, f.predictor, f.workload.dtype, &f.transfers_used);
  for (std::string& cv : roofline_caveats(f.workload.dtype, f.roofline_fallbacks))
    caveats.push_back(std::move(cv));
  for (std::string& cv : workload_caveats(model, f.workload)) caveats.push_back(std::move(cv));
  for (std::string& cv : memory_caveats(f.memory)) caveats.push_back(std::move(cv));
  if (f.band_high_ms > 0) caveats.push_back(multi_gpu_band_caveat(f.workload.dtype));
  j["caveats"] = caveats;
  return j;
}

std::string parallel_forecast_to_json(const GpuSpec& gpu, const ModelConfig& model,
                                      const ParallelForecast& f) {
  return detail::parallel_forecast_json(gpu, model, f).dump(2);
}

namespace detail {

nlohmann::ordered_json memory_json(const TrainingMemory& m) {
  return {{"stage", m.stage},
          {"weights_gb", m.weights_gb},
          {"gradients_gb", m.gradients_gb},
          {"optimizer_gb", m.optimizer_gb},
          {"activations_gb", m.activations_gb},
          {"workspace_gb", m.workspace_gb},
          {"context_gb", m.context_gb},
          {"total_gb", m.total_gb},
          {"capacity_gb", m.capacity_gb},
          {"fits", m.fits}};
}

}  // namespace detail
}  // namespace tilecast
