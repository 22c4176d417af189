// Aggregation. Each distinct kernel is forecast once (layers repeat the same
// shapes). The step is then replayed as PyTorch eager runs it: the host
// dispatches kernels in order (forward through the sections, backward in reverse)
// while the GPU executes them asynchronously. A kernel's forecast latency is its
// isolated latency, which includes a fixed per-launch cost (the predictor's
// `overhead_ms`); in a stream that cost is paid on the host and overlaps with the
// GPU's previous kernels, so it only shows when the GPU runs dry (runs of small
// kernels). Each kernel is charged the time it advances the GPU's timeline. The
// replay runs on forecast/timeline.hpp's streams: host dispatch and compute today.
#include "tilecast/model_forecast.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>

#include "common/sort_by_key.hpp"
#include "forecast/kernel_times.hpp"
#include "forecast/operator_bounds.hpp"
#include "forecast/timeline.hpp"
#include "kernel/library_profile.hpp"
#include "tilecast/error.hpp"
#include "tilecast/error_bands.hpp"

namespace tilecast {
namespace {

// Dispatches one kernel on the host and runs it on the compute stream; returns how
// far it moved the compute stream's finish time (the time it is charged).
double replay(detail::Timeline& t, const detail::TimedKernel& k) {
  const double before_ms = t.ready_ms(detail::Stream::compute);
  return detail::launch(t, k).finish_ms - before_ms;
}

}  // namespace

namespace detail {

ModelForecast forecast_graph_charged(const GpuSpec& gpu, const OpGraph& graph, const Workload& w,
                                     Predictor predictor, ChargedMs& charged) {
  ModelForecast f;
  f.workload = w;
  f.predictor = predictor;
  // each distinct kernel forecast once; eager and compiled graphs launch from Python
  detail::KernelTimes times(gpu, predictor, Launch::eager);
  std::vector<std::vector<detail::TimedKernel>> timed(graph.sections.size());
  std::vector<Substitution> subs;
  charged.assign(graph.sections.size(), {});
  for (std::size_t si = 0; si < graph.sections.size(); ++si) {
    const auto& s = graph.sections[si];
    double flops = 0;
    charged[si].assign(s.ops.size(), 0.0);
    for (const auto& o : s.ops) {
      const detail::TimedKernel k = times.op(o);
      timed[si].push_back(k);
      f.kernel_sum_ms += double(s.count) * (k.exec_ms + k.launch_ms);
      flops += op_flops(o);
      if (!o.stands_for.empty())
        subs.push_back({std::string(o.stands_for), std::string(op_name(o.kernel.op))});
    }
    f.flops += double(s.count) * flops;
    f.kernels += std::int64_t(s.ops.size()) * s.count;
    SectionForecast sf;
    sf.name = s.name;
    sf.count = s.count;
    f.layers.push_back(std::move(sf));
  }

  // Replay: forward in order, then backward (gradients and accumulation) in reverse.
  detail::Timeline t;
  auto charge = [&](std::size_t si, std::size_t oi, double ms) {
    const GraphOp& o = graph.sections[si].ops[oi];
    SectionForecast& sf = f.layers[si];
    if (o.phase == Phase::forward)
      sf.forward_ms += ms;
    else
      sf.backward_ms += ms;
    if (o.phase == Phase::accumulate) f.accumulate_ms += ms;
    f.breakdown_ms[static_cast<int>(o.kind)] += ms;
    charged[si][oi] += ms;
  };
  for (std::size_t si = 0; si < graph.sections.size(); ++si)
    for (std::int64_t r = 0; r < graph.sections[si].count; ++r)
      for (std::size_t oi = 0; oi < timed[si].size(); ++oi)
        if (graph.sections[si].ops[oi].phase == Phase::forward)
          charge(si, oi, replay(t, timed[si][oi]));
  for (std::size_t si = graph.sections.size(); si-- > 0;)
    for (std::int64_t r = 0; r < graph.sections[si].count; ++r)
      for (std::size_t oi = timed[si].size(); oi-- > 0;)
        if (graph.sections[si].ops[oi].phase != Phase::forward)
          charge(si, oi, replay(t, timed[si][oi]));

  for (auto& sf : f.layers) {
    f.forward_ms += sf.forward_ms;
    f.backward_ms += sf.backward_ms;
    sf.total_ms = sf.forward_ms + sf.backward_ms;
    sf.forward_ms /= double(sf.count);  // one instance
    sf.backward_ms /= double(sf.count);
  }
  // Sorted by (kernel, forecast_as), each pair once: keys joined by a NUL, which sorts below every
  // character a name holds, so they order as the pairs do (one sort instantiation for the build:
  // common/sort_by_key.hpp).
  std::vector<std::string> joined;
  joined.reserve(subs.size());
  for (const Substitution& s : subs) joined.push_back(s.kernel + '\0' + s.forecast_as);
  std::vector<Substitution> unique_subs;
  std::string_view last;
  for (const std::size_t i : detail::ascending_order({joined.begin(), joined.end()}))
    if (unique_subs.empty() || joined[i] != last) {
      unique_subs.push_back(std::move(subs[i]));
      last = joined[i];
    }
  subs = std::move(unique_subs);
  f.substitutions = std::move(subs);
  f.roofline_fallbacks.assign(times.roofline_fallbacks().begin(), times.roofline_fallbacks().end());
  f.transfers_used.assign(times.transfers_used().begin(), times.transfers_used().end());
  f.misaligned_gemms.assign(times.misaligned_gemms().begin(), times.misaligned_gemms().end());
  f.latency_ms = f.forward_ms + f.backward_ms;
  if (!std::isfinite(f.latency_ms) || !std::isfinite(f.flops) || f.latency_ms <= 0)
    throw Error("the forecast is not finite: the workload is too large for this model");
  const double seconds = f.latency_ms / 1000;
  f.samples_per_s = double(w.batch) / seconds;
  f.tokens_per_s = double(w.batch) * double(w.query_len) / seconds;
  // FP32 residuals; another precision takes them by transfer (tilecast/error_bands.hpp)
  if (const ErrorBand* band = forecast_model_band(predictor, w.mode)) {
    f.band_low_ms = f.latency_ms * band->low;
    f.band_high_ms = f.latency_ms * band->high;
  }
  return f;
}

}  // namespace detail

ModelForecast forecast_graph(const GpuSpec& gpu, const OpGraph& graph, const Workload& w,
                             Predictor predictor) {
  detail::ChargedMs charged;
  return detail::forecast_graph_charged(gpu, graph, w, predictor, charged);
}

OpGraph build_gpu_graph(const GpuSpec& gpu, const ModelConfig& model, Workload w, Engine engine) {
  w.grouped_mm_bf16_kernel = grouped_mm_bf16_kernel(gpu);
  return build_engine_graph(model, w, engine);
}

ModelForecast forecast_model(const GpuSpec& gpu, const ModelConfig& model, const Workload& w,
                             Predictor predictor) {
  return forecast_graph(gpu, build_gpu_graph(gpu, model, w, Engine::eager), w, predictor);
}

}  // namespace tilecast
