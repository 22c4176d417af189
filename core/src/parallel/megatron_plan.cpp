// The megatron engine's plan search (docs/megatron.md, "Plan"): on a fixed number of GPUs,
// every tp x cp x pp x dp x virtual stages x micro-batch size x recomputation x sequence
// parallelism (x ep for mixtures of experts) that divides, forecast through one shared kernel
// cache (the configurations share most kernels), kept when it fits, fastest step first.
#include <algorithm>
#include <cmath>

#include "parallel/megatron.hpp"
#include "parallel/parallel.hpp"
#include "tilecast/error.hpp"
#include "tilecast/model_not_loaded.hpp"

namespace tilecast {
namespace {

// Candidates a request may enumerate (each forecast costs ~0.1 ms): a larger search is refused
// naming the fields that shrink it.
constexpr long long kMaxCandidates = 2'000'000;

std::vector<int> powers_of_two(int up_to) {
  std::vector<int> v;
  for (int x = 1; x <= up_to; x *= 2) v.push_back(x);
  return v;
}

}  // namespace

MegatronPlanResult plan_megatron(const GpuSpec& gpu, const SystemSpec& system,
                                 const ModelConfig& model, const MegatronPlanRequest& q) {
  const long long room = 1LL * system.gpus_per_node * (system.network ? system.max_nodes : 1);
  if (q.gpus < 1 || q.gpus > room)
    throw Error("gpus " + std::to_string(q.gpus) + ": " + system.id + " holds 1 to " +
                std::to_string(room) + " GPUs");
  if (q.global_batch < 1 || q.global_batch > (std::int64_t{1} << 31))
    throw Error("global_batch must be a positive integer, got " + std::to_string(q.global_batch));
  if (q.seq < 1 || q.seq > (std::int64_t{1} << 31))
    throw Error("seq must be a positive integer, got " + std::to_string(q.seq));
  if (q.max_microbatch_size < 1 || q.max_microbatch_size > 1024 || q.max_virtual_stages < 1 ||
      q.max_virtual_stages > 64 || q.max_cp < 1 || q.max_cp > 1024)
    throw Error(
        "max_microbatch_size must be 1 to 1024, max_virtual_stages 1 to 64, max_cp 1 to 1024");
  (void)detail::megatron_shape(model);  // refuses what the engine does not model, once

  const std::vector<int> tps = detail::valid_tps(model);
  const bool moe = model.num_experts > 0;
  const std::int64_t layers = model.num_layers;
  Workload w = make_workload(Mode::training, q.global_batch, q.seq);
  w.dtype = q.dtype;
  // Megatron's kernels taken as timed alone (its fused kernels run long enough for the host
  // to keep ahead; the published Megatron checks, docs/megatron.md, were made so)
  detail::KernelTimes times(gpu, q.predictor, Launch::engine);
  MegatronPlanResult r;
  std::vector<MegatronPlanEntry> fit;

  // every configuration, visited twice: counted first (the budget), then forecast
  auto each = [&](auto&& visit) {
    for (int tp : tps) {
      if (tp > system.gpus_per_node || q.gpus % tp != 0) continue;
      for (int cp : powers_of_two(q.max_cp)) {
        if ((q.gpus / tp) % cp != 0) continue;
        if (cp > 1 && (q.attention != AttentionKernel::flash || q.seq % (2 * cp) != 0)) continue;
        const int rest = q.gpus / tp / cp;
        for (int pp = 1; pp <= rest; ++pp) {
          if (rest % pp != 0 || pp > layers) continue;
          const int dp = rest / pp;
          if (q.global_batch % dp != 0) continue;
          const std::int64_t per = q.global_batch / dp;
          for (int v : powers_of_two(q.max_virtual_stages)) {
            if (v > 1 && (pp < 2 || std::int64_t(pp) * v > layers)) continue;
            for (int mbs : powers_of_two(q.max_microbatch_size)) {
              if (per % mbs != 0) continue;
              for (int ep : moe ? powers_of_two(dp) : std::vector<int>{1}) {
                if (moe && (dp % ep != 0 || model.num_experts % ep != 0)) continue;
                for (int sp = 0; sp <= (tp > 1 ? 1 : 0); ++sp) {
                  if (sp && (q.seq / cp) % tp != 0) continue;
                  if (!sp && ep > 1 && tp > 1) continue;
                  for (Recompute rc : {Recompute::none, Recompute::selective, Recompute::full}) {
                    MegatronConfig c;
                    c.tp = tp;
                    c.cp = cp;
                    c.pp = pp;
                    c.dp = dp;
                    c.ep = ep;
                    c.virtual_stages = v;
                    c.microbatches = int(per / mbs);
                    c.sequence_parallel = sp == 1;
                    c.recompute = rc;
                    c.attention = q.attention;
                    visit(c);
                  }
                }
              }
            }
          }
        }
      }
    }
  };
  long long candidates = 0;
  each([&](const MegatronConfig&) { ++candidates; });
  if (candidates > kMaxCandidates)
    throw Error("plan request: " + std::to_string(candidates) + " configurations, more than " +
                std::to_string(kMaxCandidates) +
                "; lower max_microbatch_size, max_virtual_stages or max_cp");
  each([&](const MegatronConfig& c) {
    ++r.considered;
    MegatronForecast f;
    try {
      f = detail::forecast_megatron_cached(gpu, system, model, w, c, times, false);
    } catch (const ModelNotLoaded&) {  // not this candidate's failure: the caller loads it
      throw;
    } catch (const Error&) {
      ++r.does_not_divide;
      return;
    }
    if (!f.memory.fits) {
      ++r.does_not_fit;
      return;
    }
    MegatronPlanEntry e;
    e.config = c;
    e.micro_batch = f.micro_batch;
    e.step_ms = f.step_ms;
    e.tokens_per_s_per_gpu = f.tokens_per_s_per_gpu;
    e.mfu = f.mfu;
    e.memory_gb = f.memory.total_gb;
    e.capacity_gb = f.memory.capacity_gb;
    e.breakdown = f.breakdown;
    fit.push_back(e);
  });
  r.fitting = static_cast<long long>(fit.size());
  const std::size_t keep = std::min(q.top, fit.size());
  std::partial_sort(
      fit.begin(), fit.begin() + std::ptrdiff_t(keep), fit.end(),
      [](const MegatronPlanEntry& a, const MegatronPlanEntry& b) { return a.step_ms < b.step_ms; });
  fit.resize(keep);
  r.by_step = std::move(fit);
  return r;
}

}  // namespace tilecast
