// Aggregation: each distinct kernel is forecast once (layers repeat the same
// shapes), then latencies are summed per section, per phase and per op kind.
#include "tilecast/model_forecast.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "tilecast/error.hpp"

namespace tilecast {

ModelForecast forecast_graph(const GpuSpec& gpu, const OpGraph& graph, const Workload& w,
                             Predictor predictor) {
  ModelForecast f;
  f.workload = w;
  f.predictor = predictor;
  using Key = std::tuple<int, std::int64_t, std::int64_t, std::int64_t, std::int64_t>;
  std::map<Key, double> cache;
  std::vector<Substitution> subs;
  for (const auto& s : graph.sections) {
    SectionForecast sf;
    sf.name = s.name;
    sf.count = s.count;
    std::array<double, kOpKindCount> kinds{};
    double acc = 0, flops = 0;
    for (const auto& o : s.ops) {
      const auto& d = o.kernel.dims;
      const Key key{static_cast<int>(o.kernel.op), d[0], d[1], d[2], d[3]};
      auto it = cache.find(key);
      if (it == cache.end())
        it = cache.emplace(key, forecast_kernel(gpu, o.kernel, predictor).latency_ms).first;
      const double ms = it->second;
      if (o.phase == Phase::forward)
        sf.forward_ms += ms;
      else
        sf.backward_ms += ms;
      if (o.phase == Phase::accumulate) acc += ms;
      kinds[static_cast<int>(o.kind)] += ms;
      if (o.mem_elements == 0) flops += kernel_flops(o.kernel);
      if (!o.stands_for.empty())
        subs.push_back({std::string(o.stands_for), std::string(op_name(o.kernel.op))});
    }
    const double n = double(s.count);
    sf.total_ms = n * (sf.forward_ms + sf.backward_ms);
    f.forward_ms += n * sf.forward_ms;
    f.backward_ms += n * sf.backward_ms;
    f.accumulate_ms += n * acc;
    f.flops += n * flops;
    for (int k = 0; k < kOpKindCount; ++k) f.breakdown_ms[k] += n * kinds[k];
    f.kernels += std::int64_t(s.ops.size()) * s.count;
    f.layers.push_back(std::move(sf));
  }
  std::sort(subs.begin(), subs.end(), [](const Substitution& a, const Substitution& b) {
    return std::tie(a.kernel, a.forecast_as) < std::tie(b.kernel, b.forecast_as);
  });
  subs.erase(std::unique(subs.begin(), subs.end(),
                         [](const Substitution& a, const Substitution& b) {
                           return a.kernel == b.kernel && a.forecast_as == b.forecast_as;
                         }),
             subs.end());
  f.substitutions = std::move(subs);
  f.latency_ms = f.forward_ms + f.backward_ms;
  if (!std::isfinite(f.latency_ms) || !std::isfinite(f.flops) || f.latency_ms <= 0)
    throw Error("the forecast is not finite: the workload is too large for this model");
  const double seconds = f.latency_ms / 1000;
  f.samples_per_s = double(w.batch) / seconds;
  f.tokens_per_s = double(w.batch) * double(w.seq) / seconds;
  return f;
}

ModelForecast forecast_model(const GpuSpec& gpu, const ModelConfig& model, const Workload& w,
                             Predictor predictor) {
  return forecast_graph(gpu, build_op_graph(model, w), w, predictor);
}

}  // namespace tilecast
