// The whole-model forecast as the JSON object the CLI (--json), the WASM binding
// and the web page share.
#include "forecast/model_json.hpp"

#include <nlohmann/json.hpp>

#include "tilecast/error.hpp"
#include "tilecast/error_bands.hpp"
#include "tilecast/footing.hpp"
#include "tilecast/forecast_caveats.hpp"
#include "tilecast/mfu.hpp"
#include "tilecast/model_forecast.hpp"
#include "tilecast/version.hpp"

namespace tilecast {
namespace {

// The request's `seq`: the sequence (prompt) length; for decode, the cache length.
std::int64_t sequence_length(const Workload& w) {
  return w.mode == Mode::decode ? w.context_len - 1 : w.query_len;
}

// What tokens_per_s (batch x query_len / latency) counts in each mode.
const char* tokens_meaning(Mode m) {
  switch (m) {
    case Mode::training: return "tokens trained per second (batch x seq per step)";
    case Mode::inference: return "tokens processed per second (batch x seq per pass)";
    case Mode::prefill: return "prompt tokens processed per second (batch x seq in one pass)";
    case Mode::decode:
      return "tokens generated per second at this batch (one per sequence per step)";
  }
  return "";
}

}  // namespace

void detail::write_band_ms(nlohmann::ordered_json& j, double low_ms, double high_ms) {
  j["band_low_ms"] = high_ms > 0 ? nlohmann::ordered_json(low_ms) : nullptr;
  j["band_high_ms"] = high_ms > 0 ? nlohmann::ordered_json(high_ms) : nullptr;
}

nlohmann::ordered_json detail::forecast_response_head(const GpuSpec& gpu,
                                                      const ModelConfig& model) {
  nlohmann::ordered_json j;
  j["tilecast_version"] = std::string(kVersion);
  j["gpu"] = {{"id", gpu.id}, {"name", gpu.name}};
  j["model"] = {{"id", model.id},
                {"name", model.name},
                {"architecture", std::string(architecture_name(model.architecture))}};
  return j;
}

void detail::add_utilization(nlohmann::ordered_json& j, const GpuSpec& gpu,
                             const ModelConfig& model, const Workload& w, double step_ms,
                             std::int64_t gpus) {
  double flops = 0;
  try {
    flops = training_model_flops(model, w.batch, w.query_len);
  } catch (const Error&) {
    return;  // an encoder-decoder: eq. 7 does not cover it
  }
  const ModelUtilization u = model_utilization(flops, step_ms, gpus, mfu_peak_tflops(gpu, w.dtype));
  j["model_tflops_per_gpu"] = u.model_tflops_per_gpu;
  j["mfu"] = u.mfu;
  j["peak_tflops"] = u.peak_tflops;
}

nlohmann::ordered_json detail::model_forecast_json(const GpuSpec& gpu, const ModelConfig& model,
                                                   const ModelForecast& f,
                                                   double roofline_latency_ms) {
  nlohmann::ordered_json j = forecast_response_head(gpu, model);
  const Workload& w = f.workload;
  j["mode"] = std::string(mode_name(w.mode));
  j["batch"] = w.batch;
  j["seq"] = sequence_length(w);
  j["predictor"] = std::string(predictor_name(f.predictor));
  j["footing"] = std::string(footing_name(forecast_footing(
      gpu, f.predictor, w.dtype, !f.roofline_fallbacks.empty(), &f.transfers_used)));
  j["engine"] = std::string(engine_name(f.engine));
  // fp32 (eager FP32), or fp16/bf16: autocast mixed precision in training, the whole pass in
  // the type otherwise (caveats)
  j["precision"] = std::string(dtype_name(w.dtype));
  j["latency_ms"] = f.latency_ms;
  detail::write_band_ms(j, f.band_low_ms, f.band_high_ms);
  j["forward_ms"] = f.forward_ms;
  j["backward_ms"] = f.backward_ms;
  j["accumulate_ms"] = f.accumulate_ms;
  j["samples_per_s"] = f.samples_per_s;
  j["tokens_per_s"] = f.tokens_per_s;
  if (w.training()) add_utilization(j, gpu, model, w, f.latency_ms, 1);
  j["kernels"] = f.kernels;
  j["flops"] = f.flops;
  j["kernel_sum_ms"] = f.kernel_sum_ms;
  nlohmann::ordered_json b;
  for (int k = 0; k < kOpKindCount; ++k)
    b[std::string(op_kind_name(static_cast<OpKind>(k)))] = f.breakdown_ms[k];
  j["breakdown"] = b;
  nlohmann::ordered_json layers = nlohmann::ordered_json::array();
  for (const auto& l : f.layers)
    layers.push_back({{"name", l.name},
                      {"count", l.count},
                      {"forward_ms", l.forward_ms},
                      {"backward_ms", l.backward_ms},
                      {"total_ms", l.total_ms}});
  j["layers"] = layers;
  nlohmann::ordered_json subs = nlohmann::ordered_json::array();
  for (const auto& s : f.substitutions)
    subs.push_back({{"kernel", s.kernel}, {"forecast_as", s.forecast_as}});
  j["substitutions"] = subs;
  std::vector<std::string> caveats = forecast_caveats(gpu, f.predictor, w.dtype, &f.transfers_used);
  for (std::string& c : workload_caveats(model, w)) caveats.push_back(std::move(c));
  if (f.engine == Engine::compiled)
    caveats.push_back(
        "Engine: torch.compile (Inductor, default mode, no CUDA graphs): each run of element-wise, "
        "norm, softmax and copy kernels is one generated kernel forecast as its largest member "
        "scaled by the run's external traffic; GEMMs stay library kernels (docs/fusion.md).");
  for (std::string& c : precision_caveats(w, f.roofline_fallbacks)) caveats.push_back(std::move(c));
  if (f.band_high_ms > 0 && model_band_transferred(w.dtype))
    caveats.push_back(transferred_band_caveat(w.dtype));
  if (!f.misaligned_gemms.empty())
    caveats.push_back(misaligned_gemm_caveat(gpu, f.misaligned_gemms));
  j["caveats"] = caveats;
  j["roofline_latency_ms"] = roofline_latency_ms;
  j["workload"] = {{"mode", std::string(mode_name(w.mode))},
                   {"batch", w.batch},
                   {"query_len", w.query_len},
                   {"context_len", w.context_len},
                   {"precision", std::string(dtype_name(w.dtype))},
                   {"tokens_per_s_counts", tokens_meaning(w.mode)}};
  if (w.training() && w.dtype != DataType::fp32)
    j["workload"]["master_weights"] = std::string(master_weights_name(w.master_weights));
  return j;
}

std::string model_forecast_to_json(const GpuSpec& gpu, const ModelConfig& model,
                                   const ModelForecast& f, double roofline_latency_ms) {
  return detail::model_forecast_json(gpu, model, f, roofline_latency_ms).dump(2);
}

}  // namespace tilecast
