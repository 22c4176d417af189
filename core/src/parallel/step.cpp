// One training step on dp x tp x pp GPUs. Each pipeline stage's micro-batch is replayed like
// the single-GPU step (forecast/model_forecast.cpp: host dispatch ahead of the compute stream,
// each distinct kernel forecast once), with the collectives on a communication stream:
// tensor-parallel all-reduces after row-parallel linears (forward) and before column-parallel
// groups (backward) block the next kernel; ZeRO-3's weight all-gathers are prefetched one
// section ahead; the data-parallel buckets are recorded with the time their last gradient is
// ready. The stages then run the pipeline schedule (pp.cpp); the step is the last stream to
// finish. With one GPU it is the single-GPU replay, kernel for kernel.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "common/checked.hpp"
#include "forecast/timeline.hpp"
#include "forecast/work_budget.hpp"
#include "parallel/parallel.hpp"
#include "tilecast/enum_names.hpp"
#include "tilecast/error.hpp"
#include "tilecast/error_bands.hpp"
#include "tilecast/interconnect.hpp"
#include "tilecast/model_forecast.hpp"
#include "tilecast/precision.hpp"

namespace tilecast {

namespace {

constexpr EnumName<Recompute> kRecompute[] = {
    {"none", Recompute::none}, {"selective", Recompute::selective}, {"full", Recompute::full}};
constexpr EnumName<PipelineSchedule> kSchedules[] = {{"1f1b", PipelineSchedule::one_f_one_b},
                                                     {"gpipe", PipelineSchedule::gpipe}};

}  // namespace

EnumNames<Recompute> recompute_names() { return kRecompute; }
EnumNames<PipelineSchedule> schedule_names() { return kSchedules; }

std::string_view recompute_name(Recompute r) { return enum_name(recompute_names(), r); }

// An empty word: none.
Recompute parse_recompute(std::string_view word) {
  if (word.empty()) return Recompute::none;
  return parse_enum(recompute_names(), word, "a recomputation mode");
}

std::string_view schedule_name(PipelineSchedule s) { return enum_name(schedule_names(), s); }

// An empty word: 1f1b.
PipelineSchedule parse_schedule(std::string_view word) {
  if (word.empty()) return PipelineSchedule::one_f_one_b;
  return parse_enum(schedule_names(), word, "a pipeline schedule");
}

std::int64_t ParallelConfig::gpus() const {
  return detail::checked_mul(detail::checked_mul(dp, tp, "dp x tp"), pp, "dp x tp x pp");
}

const SystemSpec* default_system_for(const GpuSpec& gpu, std::int64_t gpus) {
  for (const SystemSpec& s : system_catalog())
    if (!gpu.id.empty() && s.gpu == gpu.id && gpus <= std::int64_t{s.gpus_per_node} * s.max_nodes)
      return &s;
  return nullptr;
}

std::optional<SystemSpec> system_for_gpus(const GpuSpec& gpu, std::int64_t gpus) {
  if (const SystemSpec* s = default_system_for(gpu, gpus)) return *s;
  if (gpus < 1 || gpus > kMaxBuiltNodeGpus) return std::nullopt;
  return node_of_catalog_links(gpu.id.empty() ? gpu.name : gpu.id, gpu.name, int(gpus));
}

std::string no_system_for(const GpuSpec& gpu, std::int64_t gpus) {
  const bool links = catalog_interconnect(gpu.id.empty() ? gpu.name : gpu.id) != nullptr;
  return "no catalog system built from " + gpu.name + " holds " + std::to_string(gpus) +
         " GPUs, and " +
         (links ? "a node built from its catalog links holds at most " +
                      std::to_string(kMaxBuiltNodeGpus)
                : std::string("the catalog gives it no links to build a node from")) +
         " (catalog systems: " + system_catalog_ids() + ")";
}

namespace detail {

void require_layout_count(long long value, const char* name) {
  if (value < 1 || value > 65536)
    throw Error(std::string(name) + " must be an integer from 1 to 65536, got " +
                std::to_string(value));
}

namespace {

using detail::Stream;

double output_elements(const GraphOp& o) {
  const auto& d = o.kernel.dims;
  if (o.mem_elements > 0) return o.mem_elements / 2;
  if (o.kernel.op == Op::linear || o.kernel.op == Op::bmm)
    return double(d[0]) * double(d[1]) * double(d[3]);
  return double(d[0]) * double(d[1]);
}

double section_params(const GraphSection& s) {
  double p = 0;
  for (const auto& o : s.ops) p += o.param_elements;
  return p;
}

}  // namespace

void tally_memory_inputs(const OpGraph& g, MicrobatchReplay& r) {
  for (const auto& s : g.sections) {
    const double p = section_params(s);
    r.params += p * double(s.count);
    r.layer_params_max = std::max(r.layer_params_max, p);
    for (const auto& o : s.ops) {
      if (o.frozen_bytes_per_param > 0) {
        r.frozen_params += o.param_elements * double(s.count);
        r.frozen_weight_bytes += o.param_elements * o.frozen_bytes_per_param * double(s.count);
      }
      r.saved_bytes += o.saved_bytes * double(s.count);
      if (o.phase == Phase::forward)
        r.largest_output_bytes =
            std::max(r.largest_output_bytes, output_elements(o) * dtype_bytes(o.kernel.dtype));
    }
  }
}

namespace {

struct Replayer {
  detail::Timeline t;
  KernelTimes& times;
  const Collectives& coll;
  double act_bytes;  // per activation element
  MicrobatchReplay r;
  double pending_ready = -1;  // a collective the next kernel must wait for
  bool in_backward = false;

  // Runs a kernel (after any pending collective); charges it by kind.
  detail::Event kernel(const GraphOp& o) {
    if (pending_ready >= 0) {
      const double before = t.ready_ms(Stream::compute);
      const detail::Event wait =
          t.run(Stream::compute, 0, {{Stream::communication, 0, pending_ready}});
      (in_backward ? r.backward_exposed_ms : r.forward_exposed_ms) += wait.finish_ms - before;
      pending_ready = -1;
    }
    const TimedKernel k = times.op(o);
    const double before = t.ready_ms(Stream::compute);
    const detail::Event e = detail::launch(t, k);
    r.breakdown_ms[static_cast<int>(o.kind)] += e.finish_ms - before;
    return e;
  }

  // The compute stream waits for a pending collective (at the end of a pass).
  void drain() {
    if (pending_ready < 0) return;
    const double before = t.ready_ms(Stream::compute);
    t.run(Stream::compute, 0, {{Stream::communication, 0, pending_ready}});
    (in_backward ? r.backward_exposed_ms : r.forward_exposed_ms) +=
        t.ready_ms(Stream::compute) - before;
    pending_ready = -1;
  }

  // A blocking collective after `after`: the next kernel waits for it.
  void collective(double ms, const detail::Event& after) {
    if (ms <= 0) return;
    const detail::Event c = t.run(Stream::communication, ms, {after});
    r.comm_busy_ms += ms;
    pending_ready = c.finish_ms;
  }

  // A prefetched collective (ZeRO-3 gathers): issued now, waited for before `section` runs.
  double prefetch(double ms, const detail::Event& after) {
    if (ms <= 0) return -1;
    const detail::Event c = t.run(Stream::communication, ms, {after});
    r.comm_busy_ms += ms;
    return c.finish_ms;
  }
};

MicrobatchReplay replay_microbatch(const OpGraph& g, const RecomputePlan& plan,
                                   const ParallelConfig& c, const Collectives& coll,
                                   KernelTimes& times, DataType dtype) {
  Replayer rp{{}, times, coll, dtype_bytes(dtype), {}};
  MicrobatchReplay& r = rp.r;
  const double wbytes = dtype_bytes(dtype);
  tally_memory_inputs(g, r);
  const double tp_ar_per_elem = rp.act_bytes;
  auto tp_ms = [&](double elements) {
    return coll.ms(Collective::kAllReduce, Group::tp, elements * tp_ar_per_elem);
  };
  auto gather_ms = [&](const GraphSection& s) {
    return c.zero == 3 ? coll.ms(Collective::kAllGather, Group::dp, section_params(s) * wbytes) : 0;
  };
  // ZeRO-3: a section instance's weights gathered before it runs; prefetched (issued after
  // `after`, one instance ahead) or blocking (the instance's first kernel waits). Returns the
  // prefetched gather's finish (-1: none pending).
  auto gather = [&](const GraphSection& s, const detail::Event& after, bool backward) {
    const double ms = gather_ms(s);
    if (ms <= 0) return -1.0;
    const double bytes = section_params(s) * wbytes;
    ++r.gathers;
    r.gathered_bytes += bytes;
    r.gather_busy_ms += ms;
    r.largest_gather_bytes = std::max(r.largest_gather_bytes, bytes);
    double finish = -1;
    if (c.zero3_prefetch) {
      finish = rp.prefetch(ms, after);
    } else {
      rp.collective(ms, after);
      finish = rp.pending_ready;
    }
    if (backward)
      r.backward_gathers.push_back({after.finish_ms - r.forward_ms, finish - r.forward_ms});
    return c.zero3_prefetch ? finish : -1.0;
  };

  // forward, in order (ZeRO-3: each section instance's weights gathered one instance ahead,
  // or just before it without prefetch)
  detail::Event last{};
  double gathered = -1;
  if (c.zero == 3 && !g.sections.empty() && c.zero3_prefetch)
    gathered = gather(g.sections[0], last, false);
  for (std::size_t si = 0; si < g.sections.size(); ++si) {
    const auto& s = g.sections[si];
    for (std::int64_t rep = 0; rep < s.count; ++rep) {
      if (c.zero == 3 && !c.zero3_prefetch) gather(s, last, false);
      if (gathered >= 0) rp.pending_ready = std::max(rp.pending_ready, gathered);
      gathered = -1;
      bool first = true;
      for (const auto& o : s.ops) {
        if (o.phase != Phase::forward) continue;
        last = rp.kernel(o);
        if (first && c.zero == 3 && c.zero3_prefetch) {  // prefetch the next instance's weights
          const GraphSection* next = rep + 1 < s.count            ? &s
                                     : si + 1 < g.sections.size() ? &g.sections[si + 1]
                                                                  : nullptr;
          if (next) gathered = gather(*next, last, false);
        }
        first = false;
        if (c.tp > 1) rp.collective(tp_ms(tp_traffic(o).forward_elements), last);
      }
    }
  }
  rp.drain();  // the forward ends when its last collective lands
  r.forward_ms = rp.t.ready_ms(Stream::compute);

  // backward, in reverse: recomputation first, then gradients; buckets as gradients land
  rp.in_backward = true;
  const double total_grad_bytes = r.params * wbytes;
  double accumulated = 0;
  for (const auto& s : g.sections)
    for (const auto& o : s.ops)
      if (o.phase == Phase::accumulate)
        accumulated += double(s.count) * double(o.kernel.dims[0]) * double(o.kernel.dims[1]);
  BucketFiller buckets(c.bucket_mb, total_grad_bytes, accumulated * wbytes);
  if (c.zero == 3 && !g.sections.empty() && c.zero3_prefetch)
    gathered = gather(g.sections.back(), last, true);
  for (std::size_t si = g.sections.size(); si-- > 0;) {
    const auto& s = g.sections[si];
    for (std::int64_t rep = 0; rep < s.count; ++rep) {
      if (c.zero == 3 && !c.zero3_prefetch) gather(s, last, true);
      if (gathered >= 0) rp.pending_ready = std::max(rp.pending_ready, gathered);
      gathered = -1;
      bool first = true;
      auto maybe_prefetch = [&](const detail::Event& e) {
        if (!first || c.zero != 3 || !c.zero3_prefetch) return;
        first = false;
        const GraphSection* next = rep + 1 < s.count ? &s : si > 0 ? &g.sections[si - 1] : nullptr;
        if (next) gathered = gather(*next, e, true);
      };
      for (std::size_t oi = 0; oi < s.ops.size(); ++oi)
        if (plan.rerun[si][oi]) {
          const double before = rp.t.ready_ms(Stream::compute);
          last = rp.kernel(s.ops[oi]);
          r.recompute_ms += last.finish_ms - before;
          maybe_prefetch(last);
          if (c.tp > 1) rp.collective(tp_ms(tp_traffic(s.ops[oi]).forward_elements), last);
        }
      // reaching a forward op in reverse, its gradients are done: a column-parallel group's
      // first linear (the last of the group to run backward) all-reduces the input gradient
      for (std::size_t oi = s.ops.size(); oi-- > 0;) {
        const GraphOp& o = s.ops[oi];
        if (o.phase == Phase::forward) {
          if (c.tp > 1) rp.collective(tp_ms(tp_traffic(o).backward_elements), last);
          continue;
        }
        last = rp.kernel(o);
        maybe_prefetch(last);
        if (o.phase == Phase::accumulate)
          buckets.add(double(o.kernel.dims[0]) * double(o.kernel.dims[1]) * wbytes,
                      last.finish_ms - r.forward_ms);
      }
    }
  }
  rp.drain();  // e.g. a later stage's first column-parallel all-reduce
  r.backward_ms = rp.t.ready_ms(Stream::compute) - r.forward_ms;
  r.buckets = buckets.finish();
  return r;
}

}  // namespace
}  // namespace detail

namespace detail {

double schedule_steps(const ParallelConfig& c) {
  return 2.0 * double(c.pp) * double(c.microbatches);
}

std::string divisors_of(std::int64_t n, std::size_t limit) {
  std::vector<std::int64_t> low, high;
  for (std::int64_t d = 1; d <= n / d; ++d)
    if (n % d == 0) {
      low.push_back(d);
      if (d != n / d) high.push_back(n / d);
    }
  low.insert(low.end(), high.rbegin(), high.rend());
  std::string s;
  for (std::size_t i = 0; i < low.size() && i < limit; ++i)
    s += (s.empty() ? "" : ", ") + std::to_string(low[i]);
  return s;
}

void require_batch_split(std::int64_t batch, int dp, int microbatches, const char* group) {
  const std::string g = group;
  if (batch % dp != 0)
    throw Error("batch " + std::to_string(batch) + " (the global batch) does not divide over dp " +
                std::to_string(dp) + " " + g + "s; valid dp: " + divisors_of(batch));
  const std::int64_t per = batch / dp;
  if (per % microbatches != 0)
    throw Error("batch " + std::to_string(batch) + " / dp " + std::to_string(dp) + " = " +
                std::to_string(per) + " sequences per " + g + " do not divide into " +
                std::to_string(microbatches) +
                " micro-batches; valid microbatches: " + divisors_of(per));
}

namespace {

void validate(const SystemSpec& system, const Workload& w, const ParallelConfig& c) {
  if (!w.training())
    throw Error(
        "multi-GPU forecasts (gpus, dp, tp, pp, microbatches, zero, recompute, schedule, "
        "bucket_mb, system) are for "
        "training; mode is " +
        std::string(mode_name(w.mode)) + " (serving's tensor parallelism: tilecast serve --tp)");
  require_layout_count(c.dp, "dp");
  require_layout_count(c.tp, "tp");
  require_layout_count(c.pp, "pp");
  require_layout_count(c.microbatches, "microbatches");
  if (c.engine == Engine::fused)
    throw Error("engine fused is the serving engine; multi-GPU training replays eager or compiled");
  if (c.zero < 0 || c.zero > 3)
    throw Error("zero must be 0 (none), 1, 2 or 3, got " + std::to_string(c.zero));
  if (!(c.bucket_mb > 0) || c.bucket_mb > 1e6)
    throw Error("bucket_mb must be positive (DDP's default: 25)");
  const std::int64_t gpus = c.gpus();
  const std::int64_t room = std::int64_t{system.gpus_per_node} * system.max_nodes;
  if (gpus > room)
    throw Error("dp x tp x pp = " + std::to_string(gpus) + " GPUs, more than " + system.id +
                " holds (" + std::to_string(system.gpus_per_node) + " per node x " +
                std::to_string(system.max_nodes) + " nodes = " + std::to_string(room) + ")");
  if (gpus > system.gpus_per_node && !system.network)
    throw Error(std::to_string(gpus) + " GPUs need more than one node of " + system.id +
                ", which has no network between nodes; at most " +
                std::to_string(system.gpus_per_node));
  require_within_budget(schedule_steps(c), "multi-GPU training forecast",
                        "pp x microbatches (the pipeline schedule's chunks)");
  require_batch_split(w.batch, c.dp, c.microbatches, "rank");
}

}  // namespace
}  // namespace detail

ParallelForecast forecast_parallel(const GpuSpec& gpu, const SystemSpec& system,
                                   const ModelConfig& model, const Workload& w,
                                   const ParallelConfig& c, Predictor predictor) {
  detail::KernelTimes times(gpu, predictor, Launch::eager);  // each rank's eager graph
  return detail::forecast_parallel_with(gpu, system, model, w, c, times);
}

ParallelForecast detail::forecast_parallel_with(const GpuSpec& gpu, const SystemSpec& system,
                                                const ModelConfig& model, const Workload& w,
                                                const ParallelConfig& c, KernelTimes& times,
                                                ReplayMemo* memo) {
  using namespace detail;
  const Predictor predictor = times.predictor();
  validate(system, w, c);
  const ModelConfig shard = shard_model(model, c.tp);
  ParallelForecast f;
  f.config = c;
  f.workload = w;
  f.predictor = predictor;
  f.system = system.id;
  f.microbatch = w.batch / c.dp / c.microbatches;
  f.params = model.params();
  Workload mw = make_workload(Mode::training, f.microbatch, w.query_len);
  mw.dtype = w.dtype;
  const Collectives coll(system, c);
  const double act = dtype_bytes(w.dtype);
  const double boundary_bytes =
      double(f.microbatch) * double(w.query_len) * double(model.hidden_size) * act;

  const ReplayKey key{c.tp,
                      c.pp,
                      f.microbatch,
                      w.query_len,
                      int(c.recompute),
                      c.zero == 3 ? (c.zero3_prefetch ? c.dp : -c.dp) : 0,
                      c.bucket_mb,
                      int(c.engine)};
  std::vector<MicrobatchReplay> replays;
  if (memo)
    if (auto it = memo->find(key); it != memo->end()) replays = it->second;
  if (replays.empty()) {
    const OpGraph graph = build_gpu_graph(gpu, shard, mw, c.engine);
    // recomputation replays forward ops a second time: at most one more pass
    require_within_budget(
        replay_steps(graph) * (c.recompute == Recompute::none ? 1 : 2) + schedule_steps(c),
        "multi-GPU training forecast", "the model's layers, pp or microbatches");
    std::vector<OpGraph> stage_graphs = split_stages(graph, c.pp, model.name);
    for (auto& sg : stage_graphs) {
      const RecomputePlan plan = apply_recompute(sg, c.recompute);
      replays.push_back(replay_microbatch(sg, plan, c, coll, times, w.dtype));
    }
    if (memo) memo->emplace(key, replays);
  }
  std::vector<StageTimes> st(replays.size());
  for (std::size_t s = 0; s < st.size(); ++s) {
    st[s].mb = replays[s];
    st[s].send_ms = coll.ms(Collective::kSendRecv, Group::pp, boundary_bytes);
    if (c.dp > 1) {
      const Collective reduce = c.zero == 0 ? Collective::kAllReduce : Collective::kReduceScatter;
      for (const Bucket& b : st[s].mb.buckets)
        st[s].bucket_ms.push_back(coll.ms(reduce, Group::dp, b.bytes));
      if (c.zero == 1 || c.zero == 2)
        st[s].after_step_ms = coll.ms(Collective::kAllGather, Group::dp, st[s].mb.params * act);
    } else {
      st[s].mb.buckets.clear();
    }
  }
  f.step_ms = run_schedule(st, c.microbatches, c.schedule, f.stages);
  if (!std::isfinite(f.step_ms) || f.step_ms <= 0)
    throw Error("the forecast is not finite: the workload is too large for this model");

  // the critical stage: the most busy (compute and exposed communication)
  std::size_t crit = 0;
  for (std::size_t s = 0; s < f.stages.size(); ++s)
    if (f.stages[s].compute_busy_ms + f.stages[s].exposed_comm_ms >
        f.stages[crit].compute_busy_ms + f.stages[crit].exposed_comm_ms)
      crit = s;
  const MicrobatchReplay& cm = st[crit].mb;
  f.forward_ms = cm.forward_ms;
  f.backward_ms = cm.backward_ms;
  for (int k = 0; k < kOpKindCount; ++k) f.breakdown_ms[k] = c.microbatches * cm.breakdown_ms[k];
  f.communication_ms = f.stages[crit].exposed_comm_ms;
  if (cm.gathers > 0) {
    ParamGathers& pg = f.param_gathers;
    pg.gathers = std::int64_t{c.microbatches} * cm.gathers;
    pg.gathered_gb = c.microbatches * cm.gathered_bytes / 1e9;
    pg.received_gb_per_gpu = all_gather_received_bytes(pg.gathered_gb, c.dp);
    pg.largest_layer_gb = cm.largest_gather_bytes / 1e9;
    pg.busy_ms = c.microbatches * cm.gather_busy_ms;
  }
  f.bubble_ms = f.stages[crit].bubble_ms;
  f.bubble_fraction = f.bubble_ms / f.step_ms;
  const double seconds = f.step_ms / 1000;
  f.samples_per_s = double(w.batch) / seconds;
  f.tokens_per_s = f.samples_per_s * double(w.query_len);
  f.tokens_per_s_per_gpu = f.tokens_per_s / c.gpus();
  if (const ErrorBand* band = forecast_model_band(predictor, w.mode)) {
    f.band_low_ms = f.step_ms * band->low;
    f.band_high_ms = f.step_ms * band->high;
  }

  for (std::size_t s = 0; s < st.size(); ++s) {
    const TrainingMemory m = stage_memory(gpu, st[s].mb, c, int(s), w.dtype, w.master_weights);
    if (s == 0 || m.total_gb > f.memory.total_gb) f.memory = m;
  }

  auto& a = f.assumptions;
  a.push_back("system " + system.id + " (" + system.name + "), " +
              std::string(topology_name(system.topology)) + "; kernels forecast on " + gpu.name +
              (system.gpu == gpu.id ? "" : " (the system is built from " + system.gpu + ")"));
  a.push_back("global batch " + std::to_string(w.batch) + " = dp " + std::to_string(c.dp) + " x " +
              std::to_string(c.microbatches) + " micro-batches x " + std::to_string(f.microbatch) +
              " sequences");
  if (c.tp > 1)
    a.push_back("tensor parallel (Megatron): 4 all-reduces per layer per micro-batch; " +
                coll.describe(Collective::kAllReduce, Group::tp, boundary_bytes));
  if (c.dp > 1)
    a.push_back(std::string(c.zero == 0 ? "DDP" : "ZeRO-" + std::to_string(c.zero)) +
                " gradient buckets of " + std::to_string(int(c.bucket_mb)) +
                " MB (first 1 MiB) overlapping the last micro-batch's backward; " +
                coll.describe(c.zero == 0 ? Collective::kAllReduce : Collective::kReduceScatter,
                              Group::dp, c.bucket_mb * 1024 * 1024));
  if (f.param_gathers.gathers > 0) {
    const ParamGathers& pg = f.param_gathers;
    char vol[200];
    std::snprintf(
        vol, sizeof vol,
        "%lld gathers per step, %.3g GB gathered, %.3g GB received per GPU (x (dp-1)/dp), "
        "%.4g ms on the communication stream",
        static_cast<long long>(pg.gathers), pg.gathered_gb, pg.received_gb_per_gpu, pg.busy_ms);
    a.push_back(
        "ZeRO-3 parameter all-gathers over dp: each layer's weights before its forward and again "
        "before its backward, every micro-batch (" +
        std::string(vol) + "); " +
        (c.zero3_prefetch
             ? "prefetched one layer ahead, overlapping compute, as DeepSpeed (overlap_comm, "
               "stage3_prefetch_bucket_size) and FSDP (backward_prefetch BACKWARD_PRE) do by "
               "default; the gradient reduce-scatters queue behind the gathers on the dp group's "
               "stream"
             : "not prefetched: each layer's first kernel waits for its gather") +
        "; " + coll.describe(Collective::kAllGather, Group::dp, cm.largest_gather_bytes));
  }
  if (c.pp > 1)
    a.push_back("pipeline " + std::string(schedule_name(c.schedule)) + " over " +
                std::to_string(c.pp) + " stages; " +
                coll.describe(Collective::kSendRecv, Group::pp, boundary_bytes));
  a.push_back("recomputation " + std::string(recompute_name(c.recompute)) +
              "; the optimizer step itself is not forecast (as for one GPU)");
  f.roofline_fallbacks.assign(times.roofline_fallbacks().begin(), times.roofline_fallbacks().end());
  f.transfers_used.assign(times.transfers_used().begin(), times.transfers_used().end());
  if (const int keep = spans_kept_per_end(c.pp); 2 * std::int64_t{keep} < c.microbatches)
    a.push_back("timeline: each stage lists the spans of the first and last " +
                std::to_string(keep) + " of " + std::to_string(c.microbatches) +
                " micro-batches; every span is timed and counted (compute_spans, "
                "communication_spans)");
  return f;
}

}  // namespace tilecast
