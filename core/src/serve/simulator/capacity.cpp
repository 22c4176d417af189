// plan_capacity (tilecast/capacity.hpp): for each GPU and each tensor-parallel size that divides
// the model's heads (powers of two up to 8 that fit max_gpus; 16 and more, across nodes, only
// where none of those and no expert-parallel size holds the model), and for a mixture of experts
// each expert-parallel size that divides its experts (2, 4, 8: serve/expert_parallel.hpp), the
// fewest replicas whose P99 TTFT and TPOT meet the SLO at qps / replicas each: one replica, then
// the most, then bisection between them (latency falls as the per-replica rate does: the
// Poisson gaps of one seed scale with the rate), so a service one replica serves, or an SLO none
// meets, costs one or two simulations per option; options ranked by price per hour with prices,
// else by GPUs.
#include "tilecast/capacity.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

#include "common/format.hpp"
#include "forecast/model_json.hpp"
#include "forecast/work_budget.hpp"
#include "parallel/parallel.hpp"
#include "serve/memory.hpp"
#include "serve/simulator/batch_limits.hpp"
#include "serve/simulator/engine.hpp"
#include "tilecast/error.hpp"
#include "tilecast/error_bands.hpp"
#include "tilecast/footing.hpp"
#include "tilecast/model_not_loaded.hpp"
#include "tilecast/serving.hpp"
#include "tilecast/version.hpp"

namespace tilecast {
namespace {

// The most GPUs of a replica's tensor parallelism within one node, as the catalog's 8-GPU
// systems hold them; beyond, only for a model no single-node layout holds (plan_capacity).
constexpr int kNodeTp = 8;

// Whether a simulation meets the plan's SLO at P99.
bool meets_slo(const LoadForecast& f, const CapacityRequest& r) {
  return f.ttft_ms.p99 <= r.slo_ttft_ms && f.tpot_ms.p99 <= r.slo_tpot_ms;
}

// The fewest replicas in (lo, hi] that `meets` (hi does), by bisection: latency falls as the
// per-replica rate does. `meets` runs one simulation a call.
template <class Meets>
int fewest_meeting(int lo, int hi, Meets&& meets) {
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    (meets(mid) ? hi : lo) = mid;
  }
  return hi;
}

}  // namespace

CapacityPlan plan_capacity(const std::vector<GpuSpec>& gpus, const ModelConfig& model,
                           const CapacityRequest& r,
                           const std::function<void(const std::string&)>& progress) {
  if (gpus.empty()) throw Error("capacity: name at least one GPU");
  if (gpus.size() > 16) throw Error("capacity: at most 16 GPUs at once");
  if (!(r.qps > 0 && r.qps <= 1e6)) throw Error("capacity: qps must be above 0 and at most 1e6");
  if (!(r.slo_ttft_ms > 0 && r.slo_tpot_ms > 0 && std::isfinite(r.slo_ttft_ms) &&
        std::isfinite(r.slo_tpot_ms)))
    throw Error("capacity: give both SLOs, slo_ttft_ms and slo_tpot_ms, above 0");
  if (r.max_gpus < 1 || r.max_gpus > 1024) throw Error("capacity: max_gpus must be 1 to 1024");
  if (!r.price_per_gpu_hour.empty() && r.price_per_gpu_hour.size() != 1 &&
      r.price_per_gpu_hour.size() != gpus.size())
    throw Error("capacity: give one price per GPU hour, or one per GPU (" +
                std::to_string(gpus.size()) + ")");
  for (double p : r.price_per_gpu_hour)
    if (!(p > 0 && p <= 1e6))
      throw Error("capacity: a price per GPU hour must be above 0 and at most 1e6");

  CapacityPlan plan;
  plan.request = r;
  // the tensor-parallel sizes searched within a node: those of 1, 2, 4, 8 that divide the model
  // and fit max_gpus
  const std::vector<int> tps = detail::valid_tps(model);
  struct Layout {
    int tp = 1, ep = 1;
  };
  std::vector<Layout> layouts;
  for (int tp = 1; tp <= kNodeTp; tp *= 2)
    if (tp <= r.max_gpus && std::find(tps.begin(), tps.end(), tp) != tps.end())
      layouts.push_back({tp, 1});
  // a top-k mixture of experts: also its experts over 2, 4 or 8 GPUs, each GPU its own requests
  if (model.num_experts >= 2 && model.experts_per_token >= 1)
    for (int ep : {2, 4, 8})
      if (ep <= r.max_gpus && model.num_experts % ep == 0) layouts.push_back({1, ep});
  // The work budget (forecast/work_budget.hpp), estimated before anything runs: first the least
  // a plan does (one simulation per GPU and tensor-parallel size, each its least), then before
  // each simulation the work so far and its least; the plan's meter counts the simulations' work
  // as they run, so a search that would go on past the budget ends there.
  constexpr std::string_view kWhat = "capacity plan";
  constexpr std::string_view kReduce = "requests, output tokens, max_gpus or the GPUs named";
  detail::WorkMeter meter(kWhat, kReduce);
  LoadRequest each = r.load;
  each.arrivals = Arrivals::poisson;
  // a limit not given is vLLM's default for each GPU: the least work takes the largest of them
  if (each.batch_limits == BatchLimits::fixed)
    for (const GpuSpec& g : gpus) {
      const detail::VllmBatchDefaults vllm = detail::vllm_batch_defaults(g);
      if (r.load.max_seqs == 0) each.max_seqs = std::max(each.max_seqs, vllm.max_seqs);
      if (r.load.max_batch_tokens == 0)
        each.max_batch_tokens = std::max(each.max_batch_tokens, vllm.max_batch_tokens);
    }
  const double work_each = detail::simulation_work(each);
  detail::require_within_budget(double(gpus.size()) * double(layouts.size()) * work_each, kWhat,
                                kReduce);
  // what every simulation of a GPU assumed (its precision, transferred models, matrix clock, ...):
  // the caveats all of them gave, in their order, less those of one run's own setup
  // (detail::is_run_caveat: its rate, KV blocks and batch limits)
  std::vector<std::string> shared_caveats;
  std::vector<std::pair<CapacityOption, std::size_t>> found;  // each option, its GPU's index
  for (std::size_t g = 0; g < gpus.size(); ++g) {
    const GpuSpec& gpu = gpus[g];
    std::optional<std::vector<std::string>> gpu_caveats;
    const double price = r.price_per_gpu_hour.empty()       ? 0
                         : r.price_per_gpu_hour.size() == 1 ? r.price_per_gpu_hour[0]
                                                            : r.price_per_gpu_hour[g];
    // one layout's option; false when the model (or its longest request) does not fit it
    auto try_layout = [&](const Layout& layout) {
      CapacityOption o;
      o.gpu = gpu.id.empty() ? gpu.name : gpu.id;
      o.tp = layout.tp;
      o.ep = layout.ep;
      const int per_replica = layout.tp * layout.ep;  // one replica's GPUs
      const std::string name =
          layout.ep > 1 ? "ep " + std::to_string(layout.ep) : "tp " + std::to_string(layout.tp);
      LoadRequest lr = r.load;
      lr.serving.tp = layout.tp;
      lr.serving.ep = layout.ep;
      lr.arrivals = Arrivals::poisson;
      lr.slo_ttft_ms = r.slo_ttft_ms;
      lr.slo_tpot_ms = r.slo_tpot_ms;
      lr.band = false;  // each candidate simulated once
      auto run = [&](int replicas) {
        detail::require_within_budget(meter.spent() + work_each, kWhat, kReduce);
        lr.qps = r.qps / replicas;
        LoadForecast f = simulate_serving(gpu, model, lr);
        ++plan.simulations;
        o.footing = f.footing;
        if (!gpu_caveats) {
          gpu_caveats = f.caveats;
          std::erase_if(*gpu_caveats,
                        [](const std::string& line) { return detail::is_run_caveat(line); });
        } else {
          std::erase_if(*gpu_caveats, [&](const std::string& line) {
            return std::find(f.caveats.begin(), f.caveats.end(), line) == f.caveats.end();
          });
        }
        const bool ok = meets_slo(f, r);
        if (progress)
          progress(o.gpu + " " + name + " x " + std::to_string(replicas) + " replicas: P99 TTFT " +
                   detail::format_with("%.1f", f.ttft_ms.p99) + " ms, TPOT " +
                   detail::format_with("%.2f", f.tpot_ms.p99) + " ms" + (ok ? " (meets)" : ""));
        return std::make_pair(ok, f);
      };
      const int most = r.max_gpus / per_replica;
      try {
        // one replica first (a small service meets there), then the most (an SLO nothing meets
        // misses there), then bisection between the last that missed and the first that met
        int lo = 0, hi = 0;  // lo misses (0: none tried), hi meets (0: none found)
        LoadForecast best;
        for (int n : {1, most}) {
          if (n == lo) break;  // most == 1, tried
          auto [ok, f] = run(n);
          if (ok) {
            hi = n;
            best = f;
            break;
          }
          lo = n;
          if (n == most) {
            o.ttft_p99_ms = f.ttft_ms.p99;
            o.tpot_p99_ms = f.tpot_ms.p99;
            o.gpus = most * per_replica;
            o.why = "the SLO is missed even at " + std::to_string(most) +
                    (most == 1 ? " replica (" : " replicas (") +
                    std::to_string(most * per_replica) +
                    (most * per_replica == 1 ? " GPU)" : " GPUs)");
          }
        }
        if (hi == 0) {
          found.emplace_back(std::move(o), g);
          return true;
        }
        // each meeting count is below the last: the last one met is the answer's forecast
        hi = fewest_meeting(lo, hi, [&](int n) {
          auto [ok, f] = run(n);
          if (ok) best = std::move(f);
          return ok;
        });
        o.meets = true;
        o.replicas = hi;
        o.gpus = hi * per_replica;
        o.ttft_p99_ms = best.ttft_ms.p99;
        o.tpot_p99_ms = best.tpot_ms.p99;
        o.tokens_per_gpu_hour = best.output_tokens_per_s * hi / o.gpus * 3600;
        if (price > 0) {
          o.price_per_hour = price * o.gpus;
          o.tokens_per_dollar = o.tokens_per_gpu_hour / price;
        }
      } catch (const ModelNotLoaded&) {  // not this option's failure: the caller loads it
        throw;
      } catch (const detail::OverBudget&) {  // not this option's either: the plan's work
        throw;
      } catch (const detail::DoesNotFit& e) {
        o.why = e.what();
        found.emplace_back(std::move(o), g);
        return false;
      } catch (const Error& e) {
        o.why = e.what();
      }
      found.emplace_back(std::move(o), g);
      return true;
    };
    bool fits_a_node = false;
    for (const Layout& layout : layouts) fits_a_node = try_layout(layout) || fits_a_node;
    // Tensor parallelism across nodes, only for a GPU none of whose single-node layouts holds
    // the model (or its longest request), as deployments span nodes only then: 16, 32, ... GPUs
    // per replica, within max_gpus, that divide the model.
    if (!fits_a_node)
      for (int tp = 2 * kNodeTp; tp <= r.max_gpus; tp *= 2)
        if (std::find(tps.begin(), tps.end(), tp) != tps.end()) try_layout({tp, 1});
    if (gpu_caveats)
      for (std::string& line : *gpu_caveats)
        if (std::find(shared_caveats.begin(), shared_caveats.end(), line) == shared_caveats.end())
          shared_caveats.push_back(std::move(line));
  }
  std::stable_sort(found.begin(), found.end(), [](const auto& x, const auto& y) {
    const CapacityOption &a = x.first, &b = y.first;
    if (a.meets != b.meets) return a.meets;
    if (!a.meets) return false;
    if (a.price_per_hour != b.price_per_hour) return a.price_per_hour < b.price_per_hour;
    return a.gpus < b.gpus;
  });
  for (auto& entry : found) plan.options.push_back(std::move(entry.first));
  // The best option's 80% band: its fewest replicas with every step at the band's fast and slow
  // edges (as the central search, from the replicas it found: fewer can only meet at the fast
  // edge, more only at the slow)
  std::string no_band_why;
  const ErrorBand* step_band = forecast_model_band(r.load.serving.predictor, Mode::inference);
  CapacityOption* best =
      !plan.options.empty() && plan.options.front().meets ? &plan.options.front() : nullptr;
  if (best && !step_band) no_band_why = "the roofline predictor's steps are bounds, not forecasts";
  if (best && step_band) {
    const GpuSpec& gpu = gpus[found.front().second];
    LoadRequest lr = r.load;
    lr.serving.tp = best->tp;
    lr.serving.ep = best->ep;
    lr.arrivals = Arrivals::poisson;
    lr.band = false;
    const int most = r.max_gpus / (best->tp * best->ep);
    // whether `replicas` meet the SLO with every step at `multiple` of its forecast
    auto meets = [&](int replicas, double multiple) {
      detail::require_within_budget(meter.spent() + work_each, kWhat, kReduce);
      lr.qps = r.qps / replicas;
      lr.step_multiple = multiple;
      const LoadForecast f = simulate_serving(gpu, model, lr);
      ++plan.simulations;
      const bool ok = meets_slo(f, r);
      if (progress)
        progress(best->gpu + " x " + std::to_string(replicas) + " replicas, every step x" +
                 detail::format_with("%.2f", multiple) + " (the 80% band): P99 TTFT " +
                 detail::format_with("%.1f", f.ttft_ms.p99) + " ms, TPOT " +
                 detail::format_with("%.2f", f.tpot_ms.p99) + " ms" + (ok ? " (meets)" : ""));
      return ok;
    };
    // the fewest in (lo, hi] meeting at `multiple`, hi meeting
    auto fewest = [&](int lo, int hi, double multiple) {
      return fewest_meeting(lo, hi, [&](int n) { return meets(n, multiple); });
    };
    try {
      const int n = best->replicas;
      const int fast = n == 1 ? 1 : fewest(0, n, step_band->low);
      // 0: not even the most replicas meet it at the slow edge
      const int slow = meets(n, step_band->high) ? n
                       : n == most || !meets(most, step_band->high)
                           ? 0
                           : fewest(n, most, step_band->high);
      best->replicas_band = {fast, slow};
    } catch (const detail::OverBudget&) {
      no_band_why =
          "searching the replicas again at the band's edges would pass the work budget (fewer "
          "requests, or a smaller max_gpus, give one)";
    }
  }
  auto& c = plan.caveats;
  c.push_back(
      "Each option is replicas x tp (or ep, a mixture's experts over that many GPUs) GPUs, each "
      "replica a serving simulation "
      "(docs/serving-load.md) at qps / replicas Poisson arrivals of " +
      std::to_string(r.load.requests) +
      " requests; the SLO is met when the P99 TTFT and the P99 TPOT are within it.");
  c.push_back("Load balancing is assumed even (each replica a Poisson stream at its share).");
  if (best && best->replicas_band)
    c.push_back(
        "80% band of the best option's replicas: the fewest meeting the SLO with every "
        "step's time at " +
        detail::format_with("%.2f", step_band->low) + "x and at " +
        detail::format_with("%.2f", step_band->high) +
        "x of its forecast (the whole-model inference band, docs/generalization.md), "
        "searched as the forecast's were (docs/serving-load.md, 'Capacity').");
  else if (best)
    c.push_back("No 80% band of the best option's replicas: " + no_band_why + ".");
  c.insert(c.end(), shared_caveats.begin(), shared_caveats.end());
  return plan;
}

std::string capacity_plan_to_json(const ModelConfig& model, const CapacityPlan& p) {
  const CapacityRequest& r = p.request;
  nlohmann::ordered_json j;
  j["tilecast_version"] = std::string(kVersion);
  j["model"] = {{"id", model.id}, {"name", model.name}};
  j["qps"] = r.qps;
  j["slo"] = {{"ttft_ms", r.slo_ttft_ms}, {"tpot_ms", r.slo_tpot_ms}, {"percentile", "p99"}};
  if (r.load.trace.empty()) {
    j["prompt"] = r.load.serving.prompt;
    j["output"] = r.load.serving.output;
    if (r.load.range_ratio > 0) j["range_ratio"] = r.load.range_ratio;
  } else {
    j["lengths"] = "trace";
  }
  j["requests"] = r.load.requests;
  j["precision"] = std::string(dtype_name(r.load.serving.dtype));
  detail::write_serving_options(j, r.load.serving);
  j["scheduler"] = std::string(scheduler_name(r.load.scheduler));
  j["batch_limits"] = std::string(batch_limits_name(r.load.batch_limits));
  j["max_gpus"] = r.max_gpus;
  nlohmann::ordered_json opts = nlohmann::ordered_json::array();
  for (const CapacityOption& o : p.options) {
    nlohmann::ordered_json x;
    x["gpu"] = o.gpu;
    x["tp"] = o.tp;
    if (o.ep > 1) x["ep"] = o.ep;
    x["meets"] = o.meets;
    x["replicas"] = o.replicas;
    x["gpus"] = o.gpus;
    x["ttft_p99_ms"] = o.ttft_p99_ms;
    x["tpot_p99_ms"] = o.tpot_p99_ms;
    if (o.footing) x["footing"] = std::string(footing_name(*o.footing));
    if (o.replicas_band) {  // [fast edge, slow edge]; the slow edge null when none up to max_gpus
      const auto [fast, slow] = *o.replicas_band;
      x["replicas_band"] = {fast,
                            slow > 0 ? nlohmann::ordered_json(slow) : nlohmann::ordered_json()};
    }
    if (o.meets) {
      x["tokens_per_gpu_hour"] = o.tokens_per_gpu_hour;
      if (o.price_per_hour > 0) {
        x["price_per_hour"] = o.price_per_hour;
        x["tokens_per_dollar"] = o.tokens_per_dollar;
      }
    } else {
      x["why"] = o.why;
    }
    opts.push_back(x);
  }
  j["best"] =
      !p.options.empty() && p.options.front().meets ? opts.front() : nlohmann::ordered_json();
  j["options"] = opts;
  j["simulations"] = p.simulations;
  j["caveats"] = p.caveats;
  return j.dump(2);
}

}  // namespace tilecast
