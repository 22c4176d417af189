// A whole model's step on a GPU: every kernel of the operator graph forecast
// with the chosen kernel predictor and replayed in launch order (host dispatch
// overlapping GPU execution, as in PyTorch eager), summed per section and over
// repeats, with forward/backward totals, a per-op-kind breakdown and throughput.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "tilecast/gpu_spec.hpp"
#include "tilecast/kernel_forecast.hpp"
#include "tilecast/model_config.hpp"
#include "tilecast/op_graph.hpp"

namespace tilecast {

struct SectionForecast {
  std::string name;
  std::int64_t count = 1;
  double forward_ms = 0;   // one instance
  double backward_ms = 0;  // one instance, gradient accumulation included
  double total_ms = 0;     // count x (forward + backward)
};

struct Substitution {
  std::string kernel;       // e.g. "silu"
  std::string forecast_as;  // e.g. "gelu"
};

struct ModelForecast {
  Workload workload;
  Predictor predictor = Predictor::tilecast;
  Engine engine =
      Engine::eager;  // how the graph was launched (set by the caller of forecast_graph)
  double latency_ms = 0;
  double forward_ms = 0;
  double backward_ms = 0;    // gradients and accumulation
  double accumulate_ms = 0;  // the accumulation part of backward_ms
  double samples_per_s = 0;
  double tokens_per_s = 0;
  double kernel_sum_ms = 0;  // plain sum of the isolated kernel latencies (>= latency_ms)
  double flops = 0;          // all phases, repeats counted
  std::int64_t kernels = 0;  // kernel launches, repeats counted
  // The 80% band of the learned forecast (tilecast/error_bands.hpp, by mode); both 0 when there
  // is none (the roofline predictor, or no bands built in).
  double band_low_ms = 0;
  double band_high_ms = 0;
  std::array<double, kOpKindCount> breakdown_ms{};  // indexed by OpKind
  std::vector<SectionForecast> layers;
  std::vector<Substitution> substitutions;  // sorted, unique
  // Ops that no learned model covers on this GPU's vendor at their data type, forecast by the
  // roofline instead (sorted, unique; empty at FP32 with the built-in models).
  std::vector<std::string> roofline_fallbacks;
  // The kernels a transferred model forecast, "<model id> <type> <family>" (sorted, unique).
  std::vector<std::string> transfers_used;
  // "<op> <dims>" of the half-precision GEMMs on the library's narrow-load kernels (misaligned
  // leading dimensions; kernel/library_profile.hpp), sorted, unique.
  std::vector<std::string> misaligned_gemms;
};

// Throws tilecast::Error on a bad workload or when the result is not finite.
ModelForecast forecast_model(const GpuSpec& gpu, const ModelConfig& model, const Workload& w,
                             Predictor predictor);
ModelForecast forecast_graph(const GpuSpec& gpu, const OpGraph& graph, const Workload& w,
                             Predictor predictor);

// The graph `engine` launches for the workload on this GPU: build_engine_graph with what the
// GPU's kernel library runs (kernel/library_profile.hpp: PyTorch's grouped GEMM kernel where it
// has one). Every graph a forecast times is built here, so no front end forgets the library.
OpGraph build_gpu_graph(const GpuSpec& gpu, const ModelConfig& model, Workload w, Engine engine);

// The API's response object (see api.hpp), as JSON text.
std::string model_forecast_to_json(const GpuSpec& gpu, const ModelConfig& model,
                                   const ModelForecast& f, double roofline_latency_ms);

}  // namespace tilecast
