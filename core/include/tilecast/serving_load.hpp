// Serving under load (docs/serving-load.md): a seeded request stream (Poisson arrivals, closed-loop
// clients or a trace) run through a vLLM-v1-like scheduler (continuous batching, chunked prefill,
// paged KV blocks, preemption by recompute) or static batches, each step timed from the kernel
// forecasts of its batch shape: TTFT, TPOT and end-to-end percentiles, throughput, KV-cache use.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tilecast/error_bands.hpp"
#include "tilecast/gpu_spec.hpp"
#include "tilecast/model_config.hpp"
#include "tilecast/serving.hpp"

namespace tilecast {

// The most requests one load simulation takes (a trace's rows, --requests, --concurrency).
inline constexpr std::int64_t kMaxLoadRequests = 1'000'000;

// One request of a trace: when it arrives (ms after the first), its prompt and output tokens.
struct TraceRequest {
  double arrival_ms = 0;
  std::int64_t prompt = 0;
  std::int64_t output = 0;
};

// A trace as CSV (a header naming arrival_ms, prompt and output, in any order, then one request
// per line) or JSON (an array of {"arrival_ms", "prompt", "output"}). Errors name `origin`, the
// line (CSV) or the request index (JSON), the field and what is allowed.
std::vector<TraceRequest> parse_trace(std::string_view text, std::string_view origin);

enum class Arrivals { poisson, closed_loop, trace };
// continuous: vLLM v1's (admit what the step's chunk needs, preempt by recompute when blocks
// run out); no_evict: TensorRT-LLM's default capacity policy GUARANTEED_NO_EVICT (admit only
// when the blocks of the prompt and the whole output are free, reserved then, never preempt);
// static_batch: batches that start together and decode until the longest finishes.
enum class Scheduler { continuous, static_batch, no_evict };
std::string_view scheduler_name(Scheduler s);  // "continuous" | "static" | "no-evict"
Scheduler parse_scheduler(std::string_view word);

// Where a step's sequence and token limits come from. fixed: max_seqs and max_batch_tokens as
// given, each left 0 vLLM's own default for the GPU (core/data/engines/serving.json
// "vllm_batch_defaults": 1024 and 8192 on GPUs of at least 70 GiB but the A100, else 256 and
// 2048); trtllm_bench: trtllm-bench throughput's own choice when
// neither is given, from the model, the GPUs, the precision and the requests' mean lengths
// (core/data/engines/serving.json "trtllm_bench", serve/simulator/batch_limits.hpp).
enum class BatchLimits { fixed, trtllm_bench };
std::string_view batch_limits_name(BatchLimits b);  // "fixed" | "trtllm-bench"
BatchLimits parse_batch_limits(std::string_view word);

// The most a simulated step may hold (the request fields' and the simulator's one limit).
inline constexpr std::int64_t kMaxSeqsPerStep = 65536;
inline constexpr std::int64_t kMaxBatchTokensPerStep = 1 << 20;

// The lengths a range ratio draws from: [floor(length (1 - ratio)), ceil(length (1 + ratio))],
// at least 1 (vLLM's random dataset, --random-range-ratio).
std::pair<std::int64_t, std::int64_t> length_range(std::int64_t length, double ratio);

struct LoadRequest {
  // prompt and output (fixed lengths without a trace), tp, dtype, predictor; the engine is fused
  // (an optimised serving engine; eager and compiled are refused) and batch is ignored.
  ServingRequest serving;
  Arrivals arrivals = Arrivals::poisson;
  double qps = 0;                // Poisson: mean requests per second
  std::int64_t concurrency = 0;  // closed loop: clients
  std::int64_t requests = 0;     // how many (a trace: its length)
  std::uint64_t seed = 0;
  // > 0 (below 1; no trace): each request's lengths drawn uniform in [floor(L (1 - r)),
  // ceil(L (1 + r))] around the prompt and output L (output at least 1), as vLLM's random
  // dataset does with --random-range-ratio r; from the seed, apart from the arrivals.
  double range_ratio = 0;
  std::vector<TraceRequest> trace;
  Scheduler scheduler = Scheduler::continuous;
  BatchLimits batch_limits = BatchLimits::fixed;  // trtllm_bench: the two below are its choice
  std::int64_t max_batch_tokens = 0;    // tokens per step (vLLM max_num_batched_tokens); 0: vLLM's
  std::int64_t max_seqs = 0;            // sequences per step (vLLM max_num_seqs); 0: vLLM's
  std::int64_t block_tokens = 16;       // tokens per KV block (vLLM block_size)
  double gpu_memory_utilization = 0.9;  // of the GPU's memory the engine may use (vLLM)
  double slo_ttft_ms = 0, slo_tpot_ms = 0;  // 0: no SLO
  // false: no 80% band (its two extra runs; a capacity plan's candidates need none)
  bool band = true;
  // Every step's time times this (a capacity plan's search at its band's edges); 1: the forecast.
  // Not 1: no band.
  double step_multiple = 1;
};

struct LatencyPercentiles {
  double p50 = 0, p90 = 0, p99 = 0, mean = 0;
};

// A figure's 80% band: its least and its most.
struct Range {
  double low = 0, high = 0;
};
struct PercentileRanges {
  Range p50, p90, p99, mean;
};

// A simulation's 80% band (docs/serving-load.md, "80% band"): the same requests run again with
// every step's time at the whole-model inference band's low and high multiples, each figure's band
// the least and the most of the three runs. An error in the steps' time then moves the queue with
// it, as it would on the GPU; the error is taken as shared by every step of the run.
struct LoadBand {
  ErrorBand step;  // the multiples of every step's time
  PercentileRanges ttft_ms, tpot_ms, e2e_ms;
  Range output_tokens_per_s, requests_per_s;
};

struct LoadForecast {
  LoadRequest request;
  LatencyPercentiles ttft_ms;  // arrival to first token
  LatencyPercentiles tpot_ms;  // per request (e2e - ttft) / (output - 1), requests with output > 1
  LatencyPercentiles e2e_ms;   // arrival to last token
  double output_tokens_per_s = 0;
  double requests_per_s = 0;
  double duration_ms = 0;  // first arrival to last completion
  std::int64_t steps = 0;
  std::int64_t preemptions = 0;
  double mean_batch_seqs = 0, mean_batch_tokens = 0;  // over steps
  std::int64_t kv_blocks = 0;                         // the cache's blocks (per GPU)
  double kv_peak_fraction = 0;
  // KV-cache use over time: (ms, peak fraction of blocks used within that slice), at most 200.
  std::vector<std::pair<double, double>> kv_use;
  bool has_slo = false;
  double slo_attainment = 0;          // fraction of requests meeting both SLOs
  double goodput_requests_per_s = 0;  // requests meeting both SLOs per second
  std::int64_t step_shapes = 0;       // distinct token counts whose layers were forecast
  std::string comm_model;
  Footing footing = Footing::learned;  // what the forecast stands on (tilecast/footing.hpp)
  // None for the roofline predictor, without LoadRequest::band, or where the two extra runs
  // would pass the work budget (the caveats say which).
  std::optional<LoadBand> band;
  std::vector<std::string> caveats;
};

// Throws Error for a bad request (naming the field), a model that does not fit, a request longer
// than the KV cache, or a run beyond the work limits (docs/serving-load.md).
LoadForecast simulate_serving(const GpuSpec& gpu, const ModelConfig& model, const LoadRequest& r);

std::string load_forecast_to_json(const GpuSpec& gpu, const ModelConfig& model,
                                  const LoadForecast& f);

}  // namespace tilecast
