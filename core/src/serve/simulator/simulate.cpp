// simulate_serving (tilecast/serving_load.hpp): checks the request, sizes the KV cache as vLLM
// does (the GPU's memory at gpu_memory_utilization, less weights, the largest step's activations
// and the context), draws the arrivals, runs the engine and summarises the requests.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>

#include "common/checked.hpp"
#include "common/format.hpp"
#include "forecast/work_budget.hpp"
#include "model/architectures.hpp"
#include "serve/expert_parallel.hpp"
#include "serve/fixed_costs.hpp"
#include "serve/memory.hpp"
#include "serve/quantize.hpp"
#include "serve/serving_caveats.hpp"
#include "serve/simulator/batch_limits.hpp"
#include "serve/simulator/engine.hpp"
#include "serve/simulator/rng.hpp"
#include "serve/tensor_parallel.hpp"
#include "tilecast/enum_names.hpp"
#include "tilecast/error.hpp"
#include "tilecast/forecast_caveats.hpp"
#include "tilecast/serving_load.hpp"

namespace tilecast {
namespace {

constexpr std::size_t kKvPoints = 200;
// The KV cache's peak use from which a load forecast says the cache's size decided it.
constexpr double kCacheFullShare = 0.95;
// The lengths' random stream: the seed xor this, so the arrivals stay those of the seed.
constexpr std::uint64_t kLengthStream = 0x6c656e6774687321ULL;

// numpy's default (linear between the two nearest ranks).
LatencyPercentiles percentiles(std::vector<double> v) {
  LatencyPercentiles p;
  if (v.empty()) return p;
  std::sort(v.begin(), v.end());
  auto at = [&](double q) {
    const double rank = q * double(v.size() - 1);
    const auto lo = std::size_t(rank);
    const std::size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (rank - double(lo));
  };
  p.p50 = at(0.5);
  p.p90 = at(0.9);
  p.p99 = at(0.99);
  double sum = 0;
  for (double x : v) sum += x;
  p.mean = sum / double(v.size());
  return p;
}

// The peak use within each of kKvPoints equal slices of the run.
std::vector<std::pair<double, double>> decimate(const std::deque<std::pair<double, double>>& kv,
                                                double end_ms) {
  if (kv.size() <= kKvPoints || end_ms <= 0) return {kv.begin(), kv.end()};
  std::vector<std::pair<double, double>> out;
  std::size_t i = 0;
  for (std::size_t s = 0; s < kKvPoints; ++s) {
    const double hi = end_ms * double(s + 1) / double(kKvPoints);
    double peak = -1;
    for (; i < kv.size() && (kv[i].first <= hi || s + 1 == kKvPoints); ++i)
      peak = std::max(peak, kv[i].second);
    if (peak >= 0) out.emplace_back(hi, peak);
  }
  return out;
}

// What a run's requests came to: their latency percentiles, the run's length and throughput
// (`all_requests` and `all_outputs` the replica's: every GPU's under expert parallelism) and the
// requests meeting the SLOs.
struct Outcome {
  LatencyPercentiles ttft_ms, tpot_ms, e2e_ms;
  double duration_ms = 0, requests_per_s = 0, output_tokens_per_s = 0;
  double start_ms = 0;
  std::int64_t good = 0;
};

Outcome outcome(const std::vector<detail::SimRequest>& reqs, const LoadRequest& r,
                double all_requests, double all_outputs) {
  Outcome o;
  std::vector<double> ttft, tpot, e2e;
  double start = reqs.front().arrival_ms, end = 0;
  for (const auto& q : reqs) {
    start = std::min(start, q.arrival_ms);
    end = std::max(end, q.finish_ms);
    const double t = q.first_ms - q.arrival_ms;
    ttft.push_back(t);
    e2e.push_back(q.finish_ms - q.arrival_ms);
    const double per = q.output > 1 ? (q.finish_ms - q.first_ms) / double(q.output - 1) : 0;
    if (q.output > 1) tpot.push_back(per);
    if ((r.slo_ttft_ms <= 0 || t <= r.slo_ttft_ms) && (r.slo_tpot_ms <= 0 || per <= r.slo_tpot_ms))
      ++o.good;
  }
  o.ttft_ms = percentiles(std::move(ttft));
  o.tpot_ms = percentiles(std::move(tpot));
  o.e2e_ms = percentiles(std::move(e2e));
  o.start_ms = start;
  o.duration_ms = end - start;
  const double seconds = o.duration_ms / 1000;
  o.requests_per_s = seconds > 0 ? all_requests / seconds : 0;
  o.output_tokens_per_s = seconds > 0 ? all_outputs / seconds : 0;
  return o;
}

// The least and the most of a figure over the central run and the band's two.
Range spread(double central, double a, double b) {
  return {std::min({central, a, b}), std::max({central, a, b})};
}
PercentileRanges spread(const LatencyPercentiles& c, const LatencyPercentiles& a,
                        const LatencyPercentiles& b) {
  return {spread(c.p50, a.p50, b.p50), spread(c.p90, a.p90, b.p90), spread(c.p99, a.p99, b.p99),
          spread(c.mean, a.mean, b.mean)};
}

}  // namespace

namespace {
constexpr EnumName<Scheduler> kSchedulerNames[] = {{"continuous", Scheduler::continuous},
                                                   {"no-evict", Scheduler::no_evict},
                                                   {"static", Scheduler::static_batch}};
}  // namespace

EnumNames<Scheduler> scheduler_names() { return kSchedulerNames; }
std::string_view scheduler_name(Scheduler s) { return enum_name(scheduler_names(), s); }
Scheduler parse_scheduler(std::string_view word) {
  return parse_enum(scheduler_names(), word, "a scheduler");
}

std::pair<std::int64_t, std::int64_t> length_range(std::int64_t length, double ratio) {
  const auto lo = std::int64_t(std::floor(double(length) * (1 - ratio)));
  const auto hi = std::int64_t(std::ceil(double(length) * (1 + ratio)));
  return {std::max<std::int64_t>(lo, 1), std::max<std::int64_t>(hi, 1)};
}

LoadForecast simulate_serving(const GpuSpec& gpu, const ModelConfig& model,
                              const LoadRequest& given) {
  // the request's work as it runs (a capacity plan's meter, when it runs this, holds the plan's)
  detail::WorkMeter meter("serving simulation", "requests, output tokens or the trace's length");
  LoadRequest r = given;  // trtllm-bench's batch limits, when asked, replace the two limits
  const ServingRequest& s = r.serving;
  if (s.engine != Engine::fused)
    throw Error("a serving simulation runs the fused engine (vLLM-like), not " +
                std::string(engine_name(s.engine)));
  const detail::ServingTypes types = detail::serving_types(gpu, s);
  if (s.tp < 1 || s.tp > 1024) throw Error("tp must be 1 to 1024 GPUs");
  // one GPU's model under expert parallelism (checks ep against the model and tp)
  const ModelConfig local = detail::expert_shard(model, s.ep, s.tp);
  // the limits as given, each not given vLLM's own for the GPU (trtllm-bench's are chosen below,
  // from the requests)
  if (r.batch_limits == BatchLimits::fixed) {
    const detail::VllmBatchDefaults vllm = detail::vllm_batch_defaults(gpu);
    if (r.max_seqs == 0) r.max_seqs = vllm.max_seqs;
    if (r.max_batch_tokens == 0) r.max_batch_tokens = vllm.max_batch_tokens;
    if (r.max_batch_tokens < 1 || r.max_batch_tokens > kMaxBatchTokensPerStep)
      throw Error("max_batch_tokens must be 1 to " + std::to_string(kMaxBatchTokensPerStep));
    if (r.max_seqs < 1 || r.max_seqs > kMaxSeqsPerStep)
      throw Error("max_seqs must be 1 to " + std::to_string(kMaxSeqsPerStep));
  }
  if (r.block_tokens < 1 || r.block_tokens > 1024) throw Error("block_tokens must be 1 to 1024");
  if (!(r.gpu_memory_utilization > 0 && r.gpu_memory_utilization <= 1))
    throw Error("gpu_memory_utilization must be above 0 and at most 1");
  if (!(r.slo_ttft_ms >= 0 && r.slo_tpot_ms >= 0 && std::isfinite(r.slo_ttft_ms) &&
        std::isfinite(r.slo_tpot_ms)))
    throw Error("the SLOs must be finite and not negative (0: none)");

  // the requests, in arrival (closed loop: issue) order
  std::vector<detail::SimRequest> reqs;
  detail::EngineLimits lim;
  if (r.arrivals == Arrivals::trace && r.trace.empty()) throw Error("the trace has no requests");
  if (!(r.range_ratio >= 0 && r.range_ratio < 1))
    throw Error("range_ratio must be at least 0 and below 1 (vLLM's --random-range-ratio)");
  if (r.range_ratio > 0 && !r.trace.empty())
    throw Error("range_ratio draws lengths around prompt and output; a trace gives its own");
  if (r.range_ratio > 0 && (length_range(s.prompt, r.range_ratio).second > kMaxServingTokens ||
                            length_range(s.output, r.range_ratio).second > kMaxServingTokens))
    throw Error("prompt and output x (1 + range_ratio) must be at most 2^31 tokens");
  if (std::int64_t(r.trace.size()) > kMaxLoadRequests)
    throw Error("the trace has more than 1000000 requests");
  for (const TraceRequest& t : r.trace)
    if (t.prompt < 1 || t.prompt > kMaxServingTokens || t.output < 1 ||
        t.output > kMaxServingTokens || !(t.arrival_ms >= 0 && t.arrival_ms <= 1e12))
      throw Error("a trace request is out of range (arrival 0 to 1e12 ms, lengths 1 to 2^31)");
  // the least work, before the requests are built (forecast/work_budget.hpp decides); the rest is
  // counted as the engine runs
  detail::require_within_budget(meter.spent() + detail::simulation_work(r), "serving simulation",
                                "requests, output tokens or the trace's length");
  if (r.arrivals == Arrivals::trace) {
    for (const TraceRequest& t : r.trace)
      reqs.push_back({.arrival_ms = t.arrival_ms, .prompt = t.prompt, .output = t.output});
    std::stable_sort(reqs.begin(), reqs.end(),
                     [](const auto& a, const auto& b) { return a.arrival_ms < b.arrival_ms; });
  } else {
    if (r.requests < 1 || r.requests > kMaxLoadRequests)
      throw Error("requests must be 1 to 1000000");
    if (r.trace.empty()) {
      if (s.prompt < 1 || s.prompt > kMaxServingTokens)
        throw Error("prompt must be 1 to 2^31 tokens");
      if (s.output < 1 || s.output > kMaxServingTokens)
        throw Error("output must be 1 to 2^31 tokens");
    }
    reqs.resize(std::size_t(r.requests), {.prompt = s.prompt, .output = s.output});
    for (std::size_t i = 0; i < reqs.size() && !r.trace.empty(); ++i) {  // the trace's lengths
      reqs[i].prompt = r.trace[i % r.trace.size()].prompt;
      reqs[i].output = r.trace[i % r.trace.size()].output;
    }
    if (r.range_ratio > 0) {  // lengths around the given ones (their own stream of the seed)
      const auto [p_lo, p_hi] = length_range(s.prompt, r.range_ratio);
      const auto [o_lo, o_hi] = length_range(s.output, r.range_ratio);
      detail::SplitMix64 lengths(r.seed ^ kLengthStream);
      for (detail::SimRequest& q : reqs) {
        q.prompt = detail::uniform_int(lengths, p_lo, p_hi);
        q.output = detail::uniform_int(lengths, o_lo, o_hi);
      }
    }
    if (r.arrivals == Arrivals::poisson) {
      if (!(r.qps > 0 && r.qps <= 1e6)) throw Error("qps must be above 0 and at most 1000000");
      detail::SplitMix64 rng(r.seed);
      double t = 0;
      for (std::size_t i = 1; i < reqs.size(); ++i) {
        t += detail::exponential(rng, r.qps / 1000);
        reqs[i].arrival_ms = t;
      }
    } else {
      if (r.concurrency < 1 || r.concurrency > kMaxLoadRequests)
        throw Error("concurrency must be 1 to 1000000");
      lim.clients = r.concurrency;
    }
  }
  // expert parallelism: each GPU runs its own requests, assigned in turn; GPU 0's share is
  // simulated (the largest; the others' alike) and the replica's throughput is all of them
  const double all_requests = double(reqs.size());
  double all_outputs = 0;
  for (const auto& q : reqs) all_outputs += double(q.output);
  if (s.ep > 1) {
    std::vector<detail::SimRequest> share;
    for (std::size_t i = 0; i < reqs.size(); i += std::size_t(s.ep)) share.push_back(reqs[i]);
    reqs = std::move(share);
    if (lim.clients > 0) lim.clients = (lim.clients + s.ep - 1) / s.ep;
  }
  double outputs = 0, prompts = 0;
  std::int64_t longest = 0, longest_prompt = 0;
  for (auto& q : reqs) {
    outputs += double(q.output);
    prompts += double(q.prompt);
    longest = std::max(longest, q.prompt + q.output);
    longest_prompt = std::max(longest_prompt, q.prompt);
    q.host_ms = detail::request_host_ms(q.prompt);  // tokenisation before scheduling
  }
  const double params =
      graph_param_count(build_op_graph(model, make_workload(Mode::inference, 1, 1)));
  const double quantized = types.quantized() ? detail::quantized_param_count(model, types) : 0;
  detail::TrtllmBenchLimits bench;
  if (r.batch_limits == BatchLimits::trtllm_bench) {
    const double n = double(reqs.size());
    // as trtllm-bench sizes the whole mapping (its world of tp x ep GPUs)
    bench = detail::trtllm_bench_limits(gpu, model, s.gpus(), types, params, quantized, prompts / n,
                                        outputs / n, longest_prompt);
    if (bench.max_batch_size > kMaxSeqsPerStep || bench.max_num_tokens > kMaxBatchTokensPerStep)
      throw Error("batch limits trtllm-bench: max_batch_size " +
                  std::to_string(bench.max_batch_size) + " and max_num_tokens " +
                  std::to_string(bench.max_num_tokens) + " exceed the simulator's " +
                  std::to_string(kMaxSeqsPerStep) + " sequences and " +
                  std::to_string(kMaxBatchTokensPerStep) + " tokens per step");
    r.max_seqs = bench.max_batch_size;
    r.max_batch_tokens = bench.max_num_tokens;
  }

  // the KV cache, as vLLM sizes it
  const ModelConfig shard = detail::shard_model(local, s.tp);
  ServingRequest profile = s;
  profile.batch = 1;
  profile.prompt = r.max_batch_tokens;  // the profiling step's activations
  // one GPU's parameters: under expert parallelism its share of the routed experts
  double gpu_params = params, gpu_quantized = quantized;
  if (s.ep > 1) {
    const double away = 1 - 1.0 / double(s.ep);
    const detail::RoutedExpertParams routed = detail::routed_expert_params(gpu, model, types);
    gpu_params -= away * routed.all;
    if (quantized > 0) gpu_quantized -= away * routed.quantized;
  }
  const detail::MemoryModel mem =
      detail::serving_memory_model(gpu, shard, gpu_params, gpu_quantized, profile);
  const double block_bytes =
      double(r.block_tokens) * (mem.kv_bytes_per_token + mem.kv_window_bytes_per_token);
  // sliding-window layers keep only the blocks their window touches, as vLLM's hybrid allocator
  // and TensorRT-LLM's per-window pools do: the cache then counts one layer's blocks
  const std::int64_t sliding = mem.window_layers;
  const bool windows = sliding > 0 && mem.kv_window > 0;
  const std::int64_t units_per_block = windows ? mem.layers : 1;
  if (windows) {
    lim.global_units = mem.layers - sliding;
    lim.window_units = sliding;
    lim.window_blocks = (mem.kv_window + r.block_tokens - 1) / r.block_tokens + 1;
  }
  const double cache_bytes = r.gpu_memory_utilization * mem.capacity_bytes - mem.weights_bytes -
                             mem.activation_bytes_per_seq - mem.context_bytes;
  if (!(cache_bytes >= block_bytes))  // NaN too
    throw detail::DoesNotFit(
        model.name + " does not fit on " + gpu.name +
        (s.gpus() > 1 ? " x" + std::to_string(s.gpus()) : std::string()) + " at " +
        detail::format_with("%.2f", r.gpu_memory_utilization) + " of its memory: weights " +
        detail::format_with("%.1f GB", mem.weights_bytes / 1e9) + ", activations at " +
        std::to_string(r.max_batch_tokens) + " tokens per step " +
        detail::format_with("%.1f GB", mem.activation_bytes_per_seq / 1e9) +
        ", no room left for a KV-cache block");
  lim.blocks = detail::count_of(cache_bytes / block_bytes * double(units_per_block), 1e12);
  lim.scheduler = r.scheduler;
  lim.max_batch_tokens = r.max_batch_tokens;
  lim.max_seqs = r.max_seqs;
  lim.block_tokens = r.block_tokens;
  // the cache in blocks of every layer (what the answer and its caveats count)
  const std::int64_t kv_blocks = lim.blocks / units_per_block;
  const std::int64_t longest_units = lim.units_for(longest);
  if (longest_units > lim.blocks)
    throw detail::DoesNotFit(
        "a request of " + std::to_string(longest) + " tokens needs " +
        std::to_string((longest_units + units_per_block - 1) / units_per_block) +
        " KV blocks; the cache holds " + std::to_string(kv_blocks) + " (" +
        std::to_string(kv_blocks * r.block_tokens) + " tokens) on " + gpu.name);

  if (!(r.step_multiple > 0 && r.step_multiple <= 100))
    throw Error("step_multiple must be above 0 and at most 100");
  const bool banded = r.band && r.step_multiple == 1;
  detail::StepCost cost(gpu, model, s);
  cost.set_time_multiple(r.step_multiple);
  const std::vector<detail::SimRequest> unrun = banded ? reqs : std::vector<detail::SimRequest>{};
  detail::EngineRun run = detail::run_engine(reqs, lim, cost, meter);
  const std::int64_t shapes = cost.shapes();  // the central run's (the band's may add more)

  LoadForecast f;
  f.request = r;
  f.has_slo = r.slo_ttft_ms > 0 || r.slo_tpot_ms > 0;
  const Outcome o = outcome(reqs, r, all_requests, all_outputs);
  f.ttft_ms = o.ttft_ms;
  f.tpot_ms = o.tpot_ms;
  f.e2e_ms = o.e2e_ms;
  f.duration_ms = o.duration_ms;
  const double start = o.start_ms;
  // the replica's: every GPU's requests (all of them under expert parallelism)
  f.requests_per_s = o.requests_per_s;
  f.output_tokens_per_s = o.output_tokens_per_s;
  if (f.has_slo) {
    f.slo_attainment = double(o.good) / double(reqs.size());
    const double seconds = f.duration_ms / 1000;
    f.goodput_requests_per_s = seconds > 0 ? f.slo_attainment * all_requests / seconds : 0;
  }
  // The 80% band: the same requests again at the whole-model band's multiples of every step
  std::string no_band_why;
  const ErrorBand* step_band = forecast_model_band(s.predictor, Mode::inference);
  if (!step_band)
    no_band_why = "the roofline predictor's steps are bounds, not forecasts";
  else if (banded) {
    try {
      Outcome at[2];
      const double multiples[2] = {step_band->low, step_band->high};
      bool finite = true;
      for (int i = 0; i < 2; ++i) {
        std::vector<detail::SimRequest> again = unrun;
        cost.set_time_multiple(multiples[i]);
        detail::run_engine(again, lim, cost, meter);
        at[i] = outcome(again, r, all_requests, all_outputs);
        finite = finite && std::isfinite(at[i].duration_ms) && std::isfinite(at[i].e2e_ms.p99);
      }
      if (!finite)
        no_band_why = "the run at the band's slow edge is too long to count in finite numbers";
      else
        f.band = LoadBand{
            .step = *step_band,
            .ttft_ms = spread(o.ttft_ms, at[0].ttft_ms, at[1].ttft_ms),
            .tpot_ms = spread(o.tpot_ms, at[0].tpot_ms, at[1].tpot_ms),
            .e2e_ms = spread(o.e2e_ms, at[0].e2e_ms, at[1].e2e_ms),
            .output_tokens_per_s =
                spread(o.output_tokens_per_s, at[0].output_tokens_per_s, at[1].output_tokens_per_s),
            .requests_per_s = spread(o.requests_per_s, at[0].requests_per_s, at[1].requests_per_s)};
    } catch (const detail::OverBudget&) {
      no_band_why =
          "simulating the requests twice more, at the band's multiples of every step, would pass "
          "the work budget (fewer requests or shorter outputs give one)";
    }
  }
  f.steps = run.steps;
  f.preemptions = run.preemptions;
  f.mean_batch_seqs = run.steps > 0 ? run.sum_seqs / double(run.steps) : 0;
  f.mean_batch_tokens = run.steps > 0 ? run.sum_tokens / double(run.steps) : 0;
  f.kv_blocks = kv_blocks;
  for (const auto& [t, u] : run.kv_use) f.kv_peak_fraction = std::max(f.kv_peak_fraction, u);
  for (auto& [t, u] : run.kv_use) t -= start;
  f.kv_use = decimate(run.kv_use, f.duration_ms);
  f.step_shapes = shapes;
  f.comm_model = cost.comm_model();
  if (!std::isfinite(f.duration_ms) || !std::isfinite(f.e2e_ms.p99))
    throw Error("the serving simulation is not finite: the request is too large for this model");

  auto& c = f.caveats;
  // Llama 4's chunked layers are kept as windows of the chunk (forecast_caveats: the caveat)
  const bool chunked = traits(model).sliding == Sliding::chunked;
  std::string window_words;  // what the cache keeps of the windowed layers, for the caveats
  if (windows)
    window_words = "its " + std::to_string(sliding) +
                   (chunked ? " chunked-attention layers keep at most the "
                            : " sliding-window layers keep only the ") +
                   std::to_string(lim.window_blocks) + (chunked ? " blocks a " : " blocks their ") +
                   std::to_string(mem.kv_window) +
                   (chunked ? "-token chunk touches" : "-token window touches");
  // what the cache was sized from, said beside the scheduler
  const std::string cache_words =
      "the GPU's " + detail::format_with("%.1f GB", mem.capacity_bytes / 1e9) +
      " as its driver reports them, at " + detail::format_with("%.2f", r.gpu_memory_utilization) +
      ", less weights " + detail::format_with("%.1f GB", mem.weights_bytes / 1e9) +
      ", activations " + detail::format_with("%.1f GB", mem.activation_bytes_per_seq / 1e9) +
      " and context " + detail::format_with("%.1f GB", mem.context_bytes / 1e9);
  if (r.scheduler == Scheduler::continuous)
    c.push_back(
        "Scheduler: vLLM v1's, simulated (docs/serving-load.md): continuous batching, chunked "
        "prefill at " +
        std::to_string(r.max_batch_tokens) + " tokens per step, at most " +
        std::to_string(r.max_seqs) + " sequences, " + std::to_string(kv_blocks) + " KV blocks of " +
        std::to_string(r.block_tokens) + " tokens (" + cache_words +
        (windows ? "; " + window_words : std::string()) + "), preemption by recompute.");
  else if (r.scheduler == Scheduler::no_evict)
    c.push_back(
        "Scheduler: TensorRT-LLM's default capacity policy (GUARANTEED_NO_EVICT), simulated "
        "(docs/serving-load.md): continuous batching, chunked prefill at " +
        std::to_string(r.max_batch_tokens) + " tokens per step, at most " +
        std::to_string(r.max_seqs) + " sequences, a request admitted only when the " +
        std::to_string(kv_blocks) + " KV blocks of " + std::to_string(r.block_tokens) +
        " tokens (" + cache_words + ") hold its prompt and whole output besides those reserved" +
        (windows ? " (" + window_words + ")" : std::string()) + ", never preempted.");
  else
    c.push_back("Scheduler: static batches of up to " + std::to_string(r.max_seqs) +
                " requests (as many as the KV cache holds at their full length" +
                (windows ? "; " + window_words : std::string()) +
                "), prefilled together and decoded until the longest finishes.");
  if (r.batch_limits == BatchLimits::trtllm_bench)
    c.push_back(
        "Batch limits: trtllm-bench's own (core/data/engines/serving.json "
        "\"trtllm_bench\"): its KV-cache estimate holds " +
        detail::format_with("%.0f", bench.kv_requests) + " requests of the mean " +
        detail::format_with("%.0f", prompts / double(reqs.size())) + " + " +
        detail::format_with("%.0f", outputs / double(reqs.size())) + " tokens, so max_batch_size " +
        std::to_string(r.max_seqs) + " and max_num_tokens " + std::to_string(r.max_batch_tokens) +
        ".");
  if (f.kv_peak_fraction >= kCacheFullShare)
    c.push_back("KV cache: it filled (at its fullest " +
                detail::format_with("%.0f", 100 * f.kv_peak_fraction) +
                " % of its blocks), so how many requests ran at once hung on its size. What an "
                "engine keeps besides the weights, the activations and the context (CUDA-graph "
                "pools, kernel workspaces, the sampler's buffers) is not modelled: its own cache "
                "may hold less, and then serve fewer requests at once and slower than forecast.");
  c.push_back(
      "Engine: the fused engine (vLLM-like, CUDA graphs; attention at FlashAttention's "
      "published share of the tensor peak where compute-bound, its roofline where memory-bound "
      "or no figure exists). Each step is timed from its batch shape: the layers' kernels at the "
      "step's token count (forecast at every count to 128, then 16 counts per octave, linear "
      "between: step_shapes counts them), the logits of each sequence, the attention of all "
      "sequences as one kernel per layer. Each step includes the sampler's read of the logits and "
      "each request "
      "waits for its prompt's tokenisation before it is scheduled; the host's scheduling, "
      "detokenisation and the HTTP server are assumed hidden behind the GPU "
      "(core/data/engines/serving.json).");
  for (std::string& m :
       detail::serving_model_caveats(gpu, types, s.predictor, model, cost.roofline_fallbacks()))
    c.push_back(std::move(m));
  const std::vector<std::string> transfers = cost.transfers_used();
  f.footing =
      forecast_footing(gpu, s.predictor, s.dtype, !cost.roofline_fallbacks().empty(), &transfers);
  if (s.tp > 1)
    c.push_back("One replica of " + std::to_string(s.tp) + " GPUs (tensor parallel): " +
                f.comm_model + ", two per layer per step, not overlapped with compute.");
  if (s.ep > 1)
    c.push_back(
        "One replica of " + std::to_string(s.ep) +
        " GPUs, expert parallel with attention data parallel (serve/expert_parallel.hpp): each "
        "GPU runs one in " +
        std::to_string(s.ep) +
        " of the requests, assigned in turn (one GPU's share simulated, the others taken alike; "
        "throughput and requests/s are the replica's), its attention, K/V cache and dense layers "
        "whole, and " +
        std::to_string(model.num_experts / s.ep) + " of the " + std::to_string(model.num_experts) +
        " routed experts, computing the rows every GPU's tokens route to them (uniform routing, "
        "the GPUs' steps in lockstep); " +
        f.comm_model +
        ": each token's hidden state to its top-k experts' GPUs and back, two per MoE layer per "
        "step, not overlapped with compute.");
  auto range = [&](std::int64_t length) {
    const auto [lo, hi] = length_range(length, r.range_ratio);
    return std::to_string(lo) + "-" + std::to_string(hi);
  };
  const std::string lengths =
      !r.trace.empty() ? "prompt and output lengths from the trace's " +
                             std::to_string(r.trace.size()) + " requests, in order"
      : r.range_ratio > 0 ? "prompts of " + range(s.prompt) + " and outputs of " + range(s.output) +
                                " tokens, uniform (vLLM's random dataset, range ratio " +
                                detail::format_with("%g", r.range_ratio) + "), no early stop"
                          : "every request " + std::to_string(s.prompt) + " prompt and " +
                                std::to_string(s.output) + " output tokens, no early stop";
  if (r.arrivals == Arrivals::poisson)
    c.push_back("Arrivals: Poisson at " + detail::format_with("%g", r.qps) + " requests/s (seed " +
                std::to_string(r.seed) + "); " + lengths + ".");
  else if (r.arrivals == Arrivals::closed_loop)
    c.push_back("Arrivals: " + std::to_string(r.concurrency) +
                " clients, each sending its next request when its previous one finishes "
                "(no think time); " +
                lengths + ".");
  else
    c.push_back("Arrivals: the trace's " + std::to_string(reqs.size()) +
                " requests at their times and lengths.");
  // Clients whose requests all have the same lengths finish together and resend together: each
  // wave's prompts queue behind one another, which clients of varying lengths do not do.
  if (r.arrivals == Arrivals::closed_loop && r.trace.empty() && r.range_ratio == 0 &&
      r.concurrency > 1 && r.concurrency < std::int64_t(reqs.size()))
    c.push_back(
        "Clients in step: with every request the same length, the " +
        std::to_string(r.concurrency) +
        " clients finish and resend together, so each wave's prompts wait for one another and "
        "the median TTFT is a wave's; requests of varying lengths drift apart (a published vLLM "
        "sweep whose outputs varied measured median TTFTs 1.2-5x below such a forecast and P99s "
        "alike: docs/serving.md, 'Median and mean TTFT of closed-loop clients'). --range-ratio "
        "spreads the lengths.");
  Workload whole = make_workload(Mode::decode, 1, 1, std::max<std::int64_t>(longest - 1, 1));
  for (auto& w : workload_caveats(model, whole)) c.push_back(std::move(w));
  for (auto& w : forecast_caveats(gpu, s.predictor, s.dtype, &transfers)) c.push_back(std::move(w));
  if (f.band) {
    c.push_back("80% band: the requests simulated twice more with every step's time at " +
                detail::format_with("%.2f", f.band->step.low) + "x and " +
                detail::format_with("%.2f", f.band->step.high) +
                "x of its forecast (the whole-model inference band, docs/generalization.md), the "
                "queue moving with the steps; each figure's band is the least and the most of the "
                "three runs. It takes the error as shared by every step of the run, as one model "
                "on one GPU errs alike from step to step (docs/serving-load.md, '80% band'). " +
                detail::serving_fixed_costs().checks_loaded);
    if (model_band_transferred(s.dtype)) c.push_back(transferred_band_caveat(s.dtype));
  } else if (step_band && !banded) {  // the caller's (a capacity plan's), who says its own band
    c.push_back(detail::serving_fixed_costs().checks_loaded);
  } else {
    c.push_back("No 80% band: " + no_band_why + ". " + detail::serving_fixed_costs().checks_loaded);
  }
  return f;
}

}  // namespace tilecast
