// The plan search (issue 11 item 7): every way to spread a global batch over the system's GPUs,
// forecast with one shared kernel cache (the configurations share most kernels), filtered by
// what divides and what fits, ranked by step time and by tokens/s per GPU.
#include <algorithm>
#include <tuple>

#include "parallel/parallel.hpp"
#include "tilecast/error.hpp"

namespace tilecast {

PlanResult plan_parallel(const GpuSpec& gpu, const SystemSpec& system, const ModelConfig& model,
                         const PlanRequest& q) {
  if (q.global_batch < 1 || q.global_batch > (std::int64_t{1} << 31))
    throw Error("global batch must be a positive integer, got " + std::to_string(q.global_batch));
  if (q.seq < 1 || q.seq > (std::int64_t{1} << 31))
    throw Error("seq must be a positive integer, got " + std::to_string(q.seq));
  const int room = system.gpus_per_node * (system.network ? system.max_nodes : 1);
  if (q.gpus < 0 || q.gpus > room)
    throw Error("gpus " + std::to_string(q.gpus) + ": " + system.id + " holds 1 to " +
                std::to_string(room));
  PlanResult r;
  if (q.gpus > 0)
    r.gpu_counts.push_back(q.gpus);
  else
    for (int g = 1; g <= system.gpus_per_node; g *= 2) r.gpu_counts.push_back(g);

  Workload w = make_workload(Mode::training, q.global_batch, q.seq);
  w.dtype = q.dtype;
  detail::KernelTimes times(gpu, q.predictor);
  detail::ReplayMemo memo;
  const std::vector<int> tps = detail::valid_tps(model);
  for (int g : r.gpu_counts)
    for (int tp = 1; tp <= g; ++tp) {
      if (g % tp != 0) continue;
      for (int pp = 1; pp <= g / tp; ++pp) {
        if ((g / tp) % pp != 0) continue;
        const int dp = g / tp / pp;
        for (int m = 1; m <= q.max_microbatches; ++m)
          for (int zero = 0; zero <= (dp > 1 ? 3 : 0); ++zero)
            for (Recompute rc : {Recompute::none, Recompute::selective, Recompute::full}) {
              ParallelConfig c;
              c.dp = dp;
              c.tp = tp;
              c.pp = pp;
              c.microbatches = m;
              c.zero = zero;
              c.recompute = rc;
              ++r.considered;
              if (std::find(tps.begin(), tps.end(), tp) == tps.end() ||
                  q.global_batch % (std::int64_t(dp) * m) != 0) {
                ++r.does_not_divide;
                continue;
              }
              ParallelForecast f;
              try {
                f = detail::forecast_parallel_with(gpu, system, model, w, c, times, &memo);
              } catch (const Error&) {  // pp not dividing the layers, or too large a kernel
                ++r.does_not_divide;
                continue;
              }
              if (!f.memory.fits) {
                ++r.does_not_fit;
                continue;
              }
              r.by_step.push_back({c, f.step_ms, f.tokens_per_s, f.tokens_per_s_per_gpu,
                                   f.bubble_fraction, f.memory.total_gb, f.memory.capacity_gb});
            }
      }
    }
  auto key = [](const PlanEntry& e) {
    const ParallelConfig& c = e.config;
    return std::make_tuple(c.dp, c.tp, c.pp, c.microbatches, c.zero, int(c.recompute));
  };
  r.by_tokens_per_gpu = r.by_step;
  std::stable_sort(r.by_step.begin(), r.by_step.end(), [&](const auto& a, const auto& b) {
    return a.step_ms != b.step_ms ? a.step_ms < b.step_ms : key(a) < key(b);
  });
  std::stable_sort(r.by_tokens_per_gpu.begin(), r.by_tokens_per_gpu.end(),
                   [&](const auto& a, const auto& b) {
                     return a.tokens_per_s_per_gpu != b.tokens_per_s_per_gpu
                                ? a.tokens_per_s_per_gpu > b.tokens_per_s_per_gpu
                                : key(a) < key(b);
                   });
  return r;
}

}  // namespace tilecast
