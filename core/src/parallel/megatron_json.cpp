// The Megatron engine's forecast as the JSON object the CLI (--json) and the binding share
// (docs/megatron.md, "Output").
#include <nlohmann/json.hpp>

#include "forecast/model_json.hpp"
#include "parallel/parallel.hpp"
#include "tilecast/forecast_caveats.hpp"
#include "tilecast/megatron.hpp"
#include "tilecast/mfu.hpp"
#include "tilecast/precision.hpp"

namespace tilecast {

nlohmann::ordered_json detail::megatron_forecast_json(const GpuSpec& gpu, const ModelConfig& model,
                                                      const MegatronForecast& f) {
  using J = nlohmann::ordered_json;
  J j = detail::training_response_head(gpu, model, f.workload, f.predictor, f.roofline_fallbacks,
                                       f.transfers_used);
  j["engine"] = kMegatronEngine;
  const MegatronConfig& c = f.config;
  j["parallel"] = {{"gpus", c.gpus()},
                   {"dp", c.dp},
                   {"tp", c.tp},
                   {"pp", c.pp},
                   {"cp", c.cp},
                   {"ep", c.ep},
                   {"microbatches", c.microbatches},
                   {"microbatch_size", f.micro_batch},
                   {"virtual_stages", c.virtual_stages},
                   {"sequence_parallel", c.sequence_parallel},
                   {"recompute", std::string(recompute_name(c.recompute))},
                   {"attention", std::string(attention_kernel_name(c.attention))},
                   {"distributed_optimizer", c.distributed_optimizer},
                   {"overlap_grad_reduce", c.overlap_grad_reduce},
                   {"layers_per_stage", f.layers_per_stage},
                   {"system", f.system}};
  j["latency_ms"] = f.step_ms;
  j["step_ms"] = f.step_ms;
  j["forward_ms"] = f.stage_forward_ms;
  j["backward_ms"] = f.stage_backward_ms;
  j["layer_forward_ms"] = f.layer_forward_ms;
  j["layer_backward_ms"] = f.layer_backward_ms;
  j["samples_per_s"] = f.samples_per_s;
  j["tokens_per_s"] = f.tokens_per_s;
  j["tokens_per_s_per_gpu"] = f.tokens_per_s_per_gpu;
  j["model_tflops_per_gpu"] = f.model_tflops_per_gpu;
  j["mfu"] = f.mfu;
  j["hfu"] = f.hfu;
  j["peak_tflops"] = f.peak_tflops;
  j["mfu_formula"] = kMfuFormula;
  const MegatronBreakdown& b = f.breakdown;
  j["breakdown_ms"] = {{"compute", b.compute_ms},    {"recompute", b.recompute_ms},
                       {"tp_comm", b.tp_comm_ms},    {"pp_comm", b.pp_comm_ms},
                       {"dp_comm", b.dp_comm_ms},    {"bubble", b.bubble_ms},
                       {"optimizer", b.optimizer_ms}};
  j["bubble_fraction"] = f.step_ms > 0 ? b.bubble_ms / f.step_ms : 0;
  j["memory"] = detail::memory_json(f.memory);
  j["params_b"] = model.params() / 1e9;
  if (c.tokens > 0) {
    j["tokens"] = c.tokens;
    j["train_days"] = f.train_days;
  }
  j["assumptions"] = f.assumptions;
  std::vector<std::string> caveats =
      forecast_caveats(gpu, f.predictor, f.workload.dtype, &f.transfers_used);
  for (std::string& cv : roofline_caveats(f.workload.dtype, f.roofline_fallbacks))
    caveats.push_back(std::move(cv));
  for (std::string& cv : memory_caveats(f.memory)) caveats.push_back(std::move(cv));
  if (f.predictor == Predictor::tilecast) caveats.push_back(megatron_band_caveat());
  j["caveats"] = caveats;
  return j;
}

std::string megatron_forecast_to_json(const GpuSpec& gpu, const ModelConfig& model,
                                      const MegatronForecast& f) {
  return detail::megatron_forecast_json(gpu, model, f).dump(2);
}

}  // namespace tilecast
