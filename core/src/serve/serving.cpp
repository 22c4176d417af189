// The serving forecast: prefill, decode steps sampled across the growing KV cache and
// interpolated per step, tensor-parallel all-reduces, memory and the limits that fit.
#include "tilecast/serving.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "common/format.hpp"
#include "forecast/kernel_times.hpp"
#include "forecast/work_budget.hpp"
#include "serve/fixed_costs.hpp"
#include "serve/memory.hpp"
#include "serve/quantize.hpp"
#include "serve/serving_caveats.hpp"
#include "serve/step.hpp"
#include "serve/tensor_parallel.hpp"
#include "tilecast/error.hpp"
#include "tilecast/forecast_caveats.hpp"

namespace tilecast {
namespace {

std::string gb(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GB", v);
  return buf;
}

// Decode steps to forecast: every step when there are few, else the first, last and three
// between (cache lengths prompt + i for step i of n).
std::vector<std::int64_t> sampled_steps(std::int64_t n) {
  std::vector<std::int64_t> s;
  if (n <= 5) {
    for (std::int64_t i = 0; i < std::max<std::int64_t>(n, 1); ++i) s.push_back(i);
    return s;
  }
  for (int q = 0; q <= 4; ++q) s.push_back(q == 4 ? n - 1 : (n - 1) * q / 4);
  s.erase(std::unique(s.begin(), s.end()), s.end());
  return s;
}

// Adds to `total` n steps' times rising linearly from t0 (step 0) towards t1 (step n): step by
// step up to kSummedSteps, so ordinary requests add exactly as they always have; beyond, the
// arithmetic series' closed form n t0 + (t1 - t0) (n - 1) / 2, which differs from the step-by-step
// sum only by rounding (relative 1e-15 or so) and costs nothing for 2^31 output tokens.
constexpr std::int64_t kSummedSteps = std::int64_t{1} << 16;
void add_interpolated_ms(double& total, double t0, double t1, std::int64_t n) {
  if (n > kSummedSteps) {
    total += double(n) * t0 + (t1 - t0) * (double(n) - 1) / 2;
    return;
  }
  for (std::int64_t i = 0; i < n; ++i) total += t0 + (t1 - t0) * double(i) / double(n);
}

}  // namespace

double kv_cache_bytes_per_token(const ModelConfig& model, DataType dtype, int tp) {
  const ModelConfig s = detail::shard_model(model, tp);
  // latent attention caches each token's latent and rotary key, every tensor-parallel GPU all of it
  if (s.kv_lora_rank > 0)
    return double(s.num_layers) * double(s.kv_lora_rank + s.qk_rope_head_dim) * dtype_bytes(dtype);
  return 2.0 * double(s.num_layers) * double(s.num_kv_heads) * double(s.head_dim) *
         dtype_bytes(dtype);
}

ServingForecast forecast_serving(const GpuSpec& gpu, const ModelConfig& model,
                                 const ServingRequest& r) {
  if (r.prompt < 1 || r.prompt > kMaxServingTokens) throw Error("prompt must be 1 to 2^31 tokens");
  if (r.output < 1 || r.output > kMaxServingTokens) throw Error("output must be 1 to 2^31 tokens");
  if (r.batch < 1 || r.batch > kMaxServingTokens) throw Error("batch must be 1 to 2^31");
  if (r.tp < 1 || r.tp > 1024) throw Error("tp must be 1 to 1024 GPUs");
  if (r.ep != 1)
    throw Error("ep " + std::to_string(r.ep) +
                ": expert parallelism is forecast for a request stream (qps or concurrency), "
                "each GPU running its own requests; a static batch takes tp");
  const detail::ServingTypes types = detail::serving_types(gpu, r);
  const ModelConfig shard = detail::shard_model(model, r.tp);
  const detail::NodeCollective all_reduce(gpu, r.tp);
  detail::StepClock clock(gpu, r.predictor, r.engine);
  const double layers = double(model.num_layers);
  // two all-reduces of the hidden states per layer
  auto comm_ms = [&](std::int64_t tokens) {
    return 2 * layers *
           all_reduce.ms(double(r.batch) * double(tokens) * double(model.hidden_size) *
                         dtype_bytes(types.act));
  };

  ServingForecast f;
  f.request = r;
  f.comm_model = all_reduce.description();
  const double prefill_comm = comm_ms(r.prompt);
  const OpGraph prefill = detail::serving_graph(
      gpu, shard, make_workload(Mode::prefill, r.batch, r.prompt), r.engine, types);
  const std::int64_t steps = r.output - 1;  // the first token comes from the prefill
  const std::vector<std::int64_t> sampled = sampled_steps(steps);
  // the prefill and each sampled decode step replay a graph of the same kernels per layer
  detail::require_within_budget(detail::replay_steps(prefill) * double(1 + sampled.size()),
                                "serving forecast", "the model's layers or experts");
  // the sampler's pass over each sequence's logits, every step (serve/fixed_costs.hpp)
  const double stream_gbps = clock.stream_bw_gbps();
  const double sampling = detail::sampling_step_ms(gpu, stream_gbps, r.batch, model.vocab_size);
  f.prefill_ms = clock.forward_ms(prefill) + prefill_comm + sampling;

  const double step_comm = comm_ms(1);
  for (std::int64_t i : sampled) {
    const Workload w = make_workload(Mode::decode, r.batch, 1, r.prompt + i);
    f.decode_ms_at.emplace_back(
        r.prompt + i, clock.forward_ms(detail::serving_graph(gpu, shard, w, r.engine, types)) +
                          step_comm + sampling);
  }
  // each step's time, linear between the sampled ones
  for (std::size_t k = 0; k + 1 < f.decode_ms_at.size(); ++k) {
    const auto [c0, t0] = f.decode_ms_at[k];
    const auto [c1, t1] = f.decode_ms_at[k + 1];
    add_interpolated_ms(f.decode_total_ms, t0, t1, c1 - c0);
  }
  if (steps > 0) f.decode_total_ms += f.decode_ms_at.back().second;
  f.decode_ms_per_token =
      steps > 0 ? f.decode_total_ms / double(steps) : f.decode_ms_at.front().second;
  f.total_ms = f.prefill_ms + f.decode_total_ms;
  f.tokens_per_s = double(r.batch) / f.decode_ms_per_token * 1000;
  f.comm_ms = prefill_comm + double(steps) * step_comm;
  if (!std::isfinite(f.total_ms) || f.total_ms <= 0)
    throw Error("the serving forecast is not finite: the request is too large for this model");
  if (const ErrorBand* band = forecast_model_band(r.predictor, Mode::inference)) f.band = *band;

  // memory
  const double params =
      graph_param_count(build_op_graph(model, make_workload(Mode::inference, 1, 1)));
  const double quantized = types.quantized() ? detail::quantized_param_count(model, types) : 0;
  const detail::MemoryModel mem = detail::serving_memory_model(gpu, shard, params, quantized, r);
  const std::int64_t tokens = r.prompt + r.output;
  f.kv_cache_bytes_per_token = mem.kv_bytes_per_token + mem.kv_window_bytes_per_token;
  f.memory = mem.at(r.batch, tokens);
  f.max_batch = mem.max_batch(tokens);
  f.max_context = mem.max_context(r.batch);

  // caveats
  auto& c = f.caveats;
  switch (r.engine) {
    case Engine::fused: {
      const std::string reads =
          stream_gbps < gpu.mem_bw_gbps
              ? detail::format_g(100 * stream_gbps / gpu.mem_bw_gbps, 3) +
                    " % of the memory bandwidth, the rate the FP16 GEMM model gives a decode "
                    "GEMV (no attention kernel was measured)"
              : std::string("the memory bandwidth (its roofline)");
      c.push_back(
          "Engine: an optimised serving engine (vLLM-like): one fused attention kernel per "
          "layer that never writes the score matrix (FlashAttention's published share of the "
          "tensor peak for the GPU's generation at the prompt's keys, the compute roofline "
          "where it publishes none; its reads, which bind a decode's K/V cache, at " +
          reads +
          "), fused norm + residual and activation + gate kernels, logits of the last position "
          "only, and no host launch gaps (CUDA graphs). Use engine eager for plain PyTorch.");
      break;
    }
    case Engine::eager:
      c.push_back(
          "Engine: plain PyTorch eager (Hugging Face modules, DynamicCache): every kernel "
          "launched from the host, the attention scores materialised.");
      break;
    case Engine::compiled:
      c.push_back(
          "Engine: the Hugging Face modules under torch.compile (Inductor, no CUDA graphs): "
          "runs of element-wise, norm, softmax and copy kernels fused into one kernel each, "
          "GEMMs left to the library, the attention scores materialised.");
      break;
  }
  for (std::string& m :
       detail::serving_model_caveats(gpu, types, r.predictor, model, clock.roofline_fallbacks()))
    c.push_back(std::move(m));
  const std::vector<std::string> transfers = clock.transfers_used();
  f.footing =
      forecast_footing(gpu, r.predictor, r.dtype, !clock.roofline_fallbacks().empty(), &transfers);
  if (const auto gemms = clock.misaligned_gemms(); !gemms.empty())
    c.push_back(misaligned_gemm_caveat(gpu, gemms));
  c.push_back(
      "Serving forecasts are checked through their kernels and against published serving "
      "measurements (data/published/serving.json, docs/serving-checks.md), not against runs "
      "of this setup. Requests are a static batch that starts together (serve --qps or "
      "--concurrency simulates queueing and continuous batching); each step includes the "
      "sampler's read of the logits, and the host's scheduling work is assumed hidden behind "
      "the GPU (core/data/engines/serving.json).");
  if (r.prompt <= detail::kShortPromptTokens)
    c.push_back(detail::serving_fixed_costs().checks_short_prompt);
  if (r.tp > 1)
    c.push_back("Tensor parallelism over " + std::to_string(r.tp) + " GPUs: " + f.comm_model +
                ", two per layer, not overlapped with compute.");
  Workload whole = make_workload(Mode::decode, r.batch, 1, tokens - 1);
  for (auto& w : workload_caveats(model, whole)) c.push_back(std::move(w));
  if (!f.memory.fits) {
    // the least tensor parallelism above the request's whose memory holds the batch
    const int wider = detail::least_tp_to_fit(2 * r.tp, [&](int tp) {
      ServingRequest at = r;
      at.tp = tp;
      return detail::serving_memory_model(gpu, detail::shard_model(model, tp), params, quantized,
                                          at)
          .at(r.batch, tokens)
          .fits;
    });
    std::string more_gpus = " No tensor parallelism up to " + std::to_string(detail::kMaxTpToFit) +
                            " GPUs holds it at this precision.";
    if (wider > 0) {
      more_gpus = " It fits at tp " + std::to_string(wider) + ".";
      try {  // a system of that many of these GPUs for its all-reduces
        const detail::NodeCollective system(gpu, wider);
      } catch (const Error&) {
        more_gpus = " Its memory would hold it at tp " + std::to_string(wider) +
                    ", more of these GPUs than a catalog system or a node of their links holds.";
      }
    }
    c.push_back("Does not fit: needs " + gb(f.memory.total_gb) + " per GPU, " +
                gb(f.memory.total_gb - f.memory.capacity_gb) + " more than " + gpu.name + "'s " +
                gb(f.memory.capacity_gb) + " (the largest batch at " + std::to_string(tokens) +
                " tokens is " + std::to_string(f.max_batch) + "; the longest context at batch " +
                std::to_string(r.batch) + " is " + std::to_string(f.max_context) +
                " tokens). The times are forecast as if it did." + more_gpus);
  }
  for (auto& w : forecast_caveats(gpu, r.predictor, r.dtype, &transfers)) c.push_back(std::move(w));
  if (f.band && model_band_transferred(r.dtype)) c.push_back(transferred_band_caveat(r.dtype));
  return f;
}

}  // namespace tilecast
