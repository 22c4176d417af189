// The plan search (issue 11 item 7): every way to spread a global batch over the system's GPUs,
// forecast with one shared kernel cache (the configurations share most kernels), filtered by
// what divides and what fits, ranked by step time and by tokens/s per GPU.
#include <algorithm>
#include <set>
#include <tuple>

#include "forecast/work_budget.hpp"
#include "parallel/parallel.hpp"
#include "tilecast/error.hpp"
#include "tilecast/model_not_loaded.hpp"

namespace tilecast {
namespace {

// A candidate's bookkeeping beyond its schedule (the memoised replays copied, the memory per
// stage, the assumptions' text), in replay steps; measured in docs/fuzzing.md.
constexpr double kCandidateSteps = 200;

}  // namespace

PlanResult plan_parallel(const GpuSpec& gpu, const SystemSpec& system, const ModelConfig& model,
                         const PlanRequest& q) {
  if (q.global_batch < 1 || q.global_batch > (std::int64_t{1} << 31))
    throw Error("global batch must be a positive integer, got " + std::to_string(q.global_batch));
  if (q.seq < 1 || q.seq > (std::int64_t{1} << 31))
    throw Error("seq must be a positive integer, got " + std::to_string(q.seq));
  const std::int64_t room =
      std::int64_t{system.gpus_per_node} * (system.network ? system.max_nodes : 1);
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
  const std::vector<int> tps = detail::valid_tps(model);
  // every (gpus, tp, pp) with tp x pp dividing the GPUs; the rest of a configuration (dp,
  // micro-batches, ZeRO, recomputation) is enumerated inside
  auto for_each_split = [&](auto&& visit) {
    for (int g : r.gpu_counts)
      for (int tp = 1; tp <= g; ++tp) {
        if (g % tp != 0) continue;
        for (int pp = 1; pp <= g / tp; ++pp)
          if ((g / tp) % pp == 0) visit(g / tp / pp, tp, pp);
      }
  };
  // The work, before any of it: each distinct micro-batch replay once per recomputation mode
  // (configurations differing only in dp, or in a ZeRO stage below 3, share one), and each
  // candidate's schedule and bookkeeping.
  double steps = 0;
  std::int64_t layers = 0;  // the model's layers (0: its graph did not build), which pp divides
  // a split the forecast would refuse (tp not dividing the heads, pp not dividing the layers),
  // counted without forecasting it
  auto cannot_split = [&](int tp, int pp) {
    return std::find(tps.begin(), tps.end(), tp) == tps.end() || (layers > 0 && layers % pp != 0);
  };
  {
    double graph_steps = 0;
    try {
      const OpGraph g = build_op_graph(model, make_workload(Mode::training, 1, q.seq));
      graph_steps = detail::replay_steps(g);
      layers = detail::layer_count(g);
    } catch (const Error&) {  // every candidate will say why
    }
    std::set<std::tuple<int, int, std::int64_t, int>> replays;  // tp, pp, size, ZeRO-3's dp
    for_each_split([&](int dp, int tp, int pp) {
      steps += 1;
      if (cannot_split(tp, pp)) return;
      for (int m = 1; m <= q.max_microbatches; ++m) {
        if (q.global_batch % (std::int64_t(dp) * m) != 0) continue;
        const std::int64_t size = q.global_batch / dp / m;
        steps += (dp > 1 ? 4 : 1) * 3 * (kCandidateSteps + 2.0 * pp * m);
        replays.insert({tp, pp, size, 0});
        if (dp > 1) replays.insert({tp, pp, size, dp});
      }
    });
    // none, selective and full recomputation: 1 + 1.5 + 1.5 passes
    steps += double(replays.size()) * 4 * graph_steps;
  }
  detail::require_within_budget(steps, "plan request",
                                "the model's layers, max_microbatches or gpus");

  detail::KernelTimes times(gpu, q.predictor, Launch::eager);  // each rank's eager graph
  detail::ReplayMemo memo;
  for_each_split([&](int dp, int tp, int pp) {
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
          if (cannot_split(tp, pp) || q.global_batch % (std::int64_t(dp) * m) != 0) {
            ++r.does_not_divide;
            continue;
          }
          ParallelForecast f;
          try {
            f = detail::forecast_parallel_with(gpu, system, model, w, c, times, &memo);
          } catch (const ModelNotLoaded&) {  // not this candidate's failure: the caller loads it
            throw;
          } catch (const Error&) {  // too large a kernel, or a graph that did not build
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
  });
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
