// A serving simulation as the API's JSON (api::forecast_serving with qps, concurrency or a trace;
// docs/serving-load.md).
#include <nlohmann/json.hpp>

#include "forecast/model_json.hpp"
#include "tilecast/serving_load.hpp"

namespace tilecast {
namespace {

nlohmann::ordered_json percentiles_json(const LatencyPercentiles& p) {
  return {{"p50", p.p50}, {"p90", p.p90}, {"p99", p.p99}, {"mean", p.mean}};
}

nlohmann::ordered_json range_json(const Range& r) { return {r.low, r.high}; }

nlohmann::ordered_json ranges_json(const PercentileRanges& p) {
  return {{"p50", range_json(p.p50)},
          {"p90", range_json(p.p90)},
          {"p99", range_json(p.p99)},
          {"mean", range_json(p.mean)}};
}

// the 80% band (LoadBand); null without one
nlohmann::ordered_json band_json(const std::optional<LoadBand>& b) {
  if (!b) return nullptr;
  return {{"step_low", b->step.low},
          {"step_high", b->step.high},
          {"ttft_ms", ranges_json(b->ttft_ms)},
          {"tpot_ms", ranges_json(b->tpot_ms)},
          {"e2e_ms", ranges_json(b->e2e_ms)},
          {"output_tokens_per_s", range_json(b->output_tokens_per_s)},
          {"requests_per_s", range_json(b->requests_per_s)}};
}

}  // namespace

nlohmann::ordered_json detail::load_forecast_json(const GpuSpec& gpu, const ModelConfig& model,
                                                  const LoadForecast& f) {
  const LoadRequest& r = f.request;
  const ServingRequest& s = r.serving;
  nlohmann::ordered_json j = detail::forecast_response_head(gpu, model);
  switch (r.arrivals) {
    case Arrivals::poisson:
      j["arrivals"] = "poisson";
      j["qps"] = r.qps;
      break;
    case Arrivals::closed_loop:
      j["arrivals"] = "closed_loop";
      j["concurrency"] = r.concurrency;
      break;
    case Arrivals::trace: j["arrivals"] = "trace"; break;
  }
  if (r.trace.empty()) {
    j["prompt"] = s.prompt;
    j["output"] = s.output;
    if (r.range_ratio > 0) j["range_ratio"] = r.range_ratio;
  } else {
    j["lengths"] = "trace";
  }
  j["requests"] = r.arrivals == Arrivals::trace ? std::int64_t(r.trace.size()) : r.requests;
  j["seed"] = r.seed;
  j["tp"] = s.tp;
  if (s.ep > 1) j["ep"] = s.ep;
  j["precision"] = std::string(dtype_name(s.dtype));
  detail::write_serving_options(j, s);
  j["engine"] = std::string(engine_name(s.engine));
  j["predictor"] = std::string(predictor_name(s.predictor));
  j["footing"] = std::string(footing_name(f.footing));
  j["scheduler"] = std::string(scheduler_name(r.scheduler));
  j["batch_limits"] = std::string(batch_limits_name(r.batch_limits));
  j["max_batch_tokens"] = r.max_batch_tokens;
  j["max_seqs"] = r.max_seqs;
  j["block_tokens"] = r.block_tokens;
  j["gpu_memory_utilization"] = r.gpu_memory_utilization;
  j["ttft_ms"] = percentiles_json(f.ttft_ms);
  j["tpot_ms"] = percentiles_json(f.tpot_ms);
  j["e2e_ms"] = percentiles_json(f.e2e_ms);
  j["output_tokens_per_s"] = f.output_tokens_per_s;
  j["requests_per_s"] = f.requests_per_s;
  j["duration_ms"] = f.duration_ms;
  j["band"] = band_json(f.band);
  if (f.has_slo) {
    nlohmann::ordered_json slo;
    if (r.slo_ttft_ms > 0) slo["ttft_ms"] = r.slo_ttft_ms;
    if (r.slo_tpot_ms > 0) slo["tpot_ms"] = r.slo_tpot_ms;
    slo["attainment"] = f.slo_attainment;
    slo["goodput_requests_per_s"] = f.goodput_requests_per_s;
    j["slo"] = slo;
  }
  j["steps"] = f.steps;
  j["preemptions"] = f.preemptions;
  j["mean_batch_seqs"] = f.mean_batch_seqs;
  j["mean_batch_tokens"] = f.mean_batch_tokens;
  j["kv_blocks"] = f.kv_blocks;
  j["kv_peak_fraction"] = f.kv_peak_fraction;
  nlohmann::ordered_json kv = nlohmann::ordered_json::array();
  for (const auto& [t, u] : f.kv_use) kv.push_back({t, u});
  j["kv_use"] = kv;
  j["kv_use_counts"] = "[ms after the first arrival, peak fraction of KV blocks used up to then]";
  j["step_shapes"] = f.step_shapes;
  if (!f.comm_model.empty()) j["comm_model"] = f.comm_model;
  j["caveats"] = f.caveats;
  return j;
}

std::string load_forecast_to_json(const GpuSpec& gpu, const ModelConfig& model,
                                  const LoadForecast& f) {
  return detail::load_forecast_json(gpu, model, f).dump(2);
}

}  // namespace tilecast
