// The whole-model forecast's JSON object (model_forecast_to_json's, before it is written
// out), for callers that add fields to it without writing and re-reading the text.
#pragma once

#include <nlohmann/json.hpp>

#include "tilecast/megatron.hpp"
#include "tilecast/model_forecast.hpp"
#include "tilecast/parallel.hpp"
#include "tilecast/serving.hpp"
#include "tilecast/serving_load.hpp"

namespace tilecast::detail {

// The fields every forecast response opens with: tilecast_version, gpu {id, name} and
// model {id, name, architecture}.
nlohmann::ordered_json forecast_response_head(const GpuSpec& gpu, const ModelConfig& model);

// A training step's model FLOP/s per GPU, MFU and the peak it divides by (tilecast/mfu.hpp, the
// megatron engine's definition), added to `j` as model_tflops_per_gpu, mfu, peak_tflops; nothing
// for an architecture the FLOPs formula does not cover (encoder-decoder).
void add_utilization(nlohmann::ordered_json& j, const GpuSpec& gpu, const ModelConfig& model,
                     const Workload& w, double step_ms, std::int64_t gpus);

// The 80% band as band_low_ms / band_high_ms, both null where there is none (high_ms 0: the
// roofline predictor; docs/generalization.md), for the kernel, model and multi-GPU responses.
void write_band_ms(nlohmann::ordered_json& j, double low_ms, double high_ms);

nlohmann::ordered_json model_forecast_json(const GpuSpec& gpu, const ModelConfig& model,
                                           const ModelForecast& f, double roofline_latency_ms);

// The other responses' objects (their *_to_json write these), for the API to extend (a priced
// request's cost) before writing them once.
nlohmann::ordered_json parallel_forecast_json(const GpuSpec& gpu, const ModelConfig& model,
                                              const ParallelForecast& f);
nlohmann::ordered_json megatron_forecast_json(const GpuSpec& gpu, const ModelConfig& model,
                                              const MegatronForecast& f);
nlohmann::ordered_json serving_forecast_json(const GpuSpec& gpu, const ModelConfig& model,
                                             const ServingForecast& f);
nlohmann::ordered_json load_forecast_json(const GpuSpec& gpu, const ModelConfig& model,
                                          const LoadForecast& f);
// The serving request's options every serving response echoes, each only when not its default:
// kv_cache, weights, decode_attention (static, loaded and capacity responses alike).
void write_serving_options(nlohmann::ordered_json& j, const ServingRequest& r);

}  // namespace tilecast::detail
