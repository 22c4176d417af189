// Pipeline parallelism: the layers split evenly over pp stages, and the step's schedule over m
// micro-batches. GPipe (Huang et al. 2019) runs every forward, then every backward; 1F1B
// (PipeDream-Flush, Narayanan et al. 2021; Megatron's default) runs pp - stage - 1 warm-up
// forwards, then alternates one forward and one backward, so at most pp - stage micro-batches'
// activations are alive. Activations go to the next stage, and their gradients come back, by
// send/recv on the sender's communication stream. Equal stages give the bubble fraction
// (p - 1) / (m + p - 1) for both schedules.
#include <algorithm>
#include <string>

#include "forecast/work_budget.hpp"
#include "parallel/parallel.hpp"
#include "tilecast/error.hpp"

namespace tilecast::detail {

bool is_layer_section(const GraphSection& s) {
  const std::string& n = s.name;
  return n.find("embedding") == std::string::npos && n != "head" && n != "heads";
}

std::int64_t layer_count(const OpGraph& graph) {
  std::int64_t n = 0;
  for (const auto& s : graph.sections)
    if (is_layer_section(s)) n += s.count;
  return n;
}

std::vector<OpGraph> split_stages(const OpGraph& graph, int pp, const std::string& model_name) {
  if (pp < 1) throw Error("pp must be a positive integer, got " + std::to_string(pp));
  const std::int64_t layers = layer_count(graph);
  if (layers % pp != 0) {
    std::string valid;
    for (std::int64_t p = 1; p <= layers; ++p)
      if (layers % p == 0) valid += (valid.empty() ? "" : ", ") + std::to_string(p);
    throw Error("pp " + std::to_string(pp) + " does not divide " + model_name + "'s " +
                std::to_string(layers) + " layers; valid pp: " + valid);
  }
  const std::int64_t per_stage = layers / pp;
  std::vector<OpGraph> stages(static_cast<std::size_t>(pp));
  std::int64_t done = 0;  // layers assigned so far
  for (const auto& s : graph.sections) {
    if (!is_layer_section(s)) {
      // before any layer: stage 0; else the stage of the layer before it
      const std::int64_t stage = done == 0 ? 0 : (done - 1) / per_stage;
      stages[std::size_t(stage)].sections.push_back(s);
      continue;
    }
    std::int64_t left = s.count;
    while (left > 0) {
      const std::int64_t stage = done / per_stage;
      const std::int64_t take = std::min(left, (stage + 1) * per_stage - done);
      GraphSection part = s;
      part.count = take;
      stages[std::size_t(stage)].sections.push_back(std::move(part));
      done += take;
      left -= take;
    }
  }
  return stages;
}

namespace {

struct Chunk {
  bool forward = true;
  int mb = 0;
};

std::vector<Chunk> order(int stage, int pp, int m, PipelineSchedule schedule) {
  std::vector<Chunk> out;
  if (schedule == PipelineSchedule::gpipe) {
    for (int i = 0; i < m; ++i) out.push_back({true, i});
    for (int i = 0; i < m; ++i) out.push_back({false, i});
    return out;
  }
  const int warmup = std::min(pp - stage - 1, m);
  int f = 0, b = 0;
  for (; f < warmup; ++f) out.push_back({true, f});
  while (f < m) {
    out.push_back({true, f++});
    out.push_back({false, b++});
  }
  while (b < m) out.push_back({false, b++});
  return out;
}

}  // namespace

int spans_kept_per_end(int pp) { return kMaxStreamSpans / (8 * std::max(pp, 1)); }

double run_schedule(const std::vector<StageTimes>& st, int m, PipelineSchedule schedule,
                    std::vector<StageStreams>& out) {
  const int pp = int(st.size());
  constexpr double kUnset = -1;
  // finish of each stage's forward / backward of each micro-batch, and when its send lands
  std::vector<std::vector<double>> f_done(pp, std::vector<double>(m, kUnset)),
      b_done(pp, std::vector<double>(m, kUnset)), f_sent(pp, std::vector<double>(m, kUnset)),
      b_sent(pp, std::vector<double>(m, kUnset));
  std::vector<std::vector<Chunk>> orders(pp);
  std::vector<std::size_t> next(pp, 0);
  std::vector<double> compute_ready(pp, 0), comm_ready(pp, 0), last_backward_start(pp, 0);
  // busy communication, summed in the order the spans run (kept or not)
  std::vector<double> comm_busy(pp, 0);
  out.assign(pp, {});
  for (int s = 0; s < pp; ++s) {
    orders[s] = order(s, pp, m, schedule);
    out[s].stage = s;
    comm_busy[s] = m * st[s].mb.comm_busy_ms;
  }
  // the output keeps the spans of the first and last few micro-batches (and those of none)
  const int keep = spans_kept_per_end(pp);
  auto kept = [&](int mb) { return mb < 0 || mb < keep || mb >= m - keep; };
  auto compute_span = [&](int s, StreamSpan sp) {
    ++out[s].compute_spans;
    if (kept(sp.microbatch)) out[s].compute.push_back(std::move(sp));
  };
  auto comm_span = [&](int s, StreamSpan sp) {
    ++out[s].comm_spans;
    comm_busy[s] += sp.finish_ms - sp.start_ms;
    if (kept(sp.microbatch)) out[s].comm.push_back(std::move(sp));
  };
  bool progress = true;
  while (progress) {
    progress = false;
    for (int s = 0; s < pp; ++s) {
      while (next[s] < orders[s].size()) {
        const Chunk c = orders[s][next[s]];
        double dep = 0;
        if (c.forward && s > 0) dep = f_sent[s - 1][c.mb];
        if (!c.forward) dep = s + 1 < pp ? b_sent[s + 1][c.mb] : f_done[s][c.mb];
        if (dep == kUnset) break;
        const MicrobatchReplay& mb = st[s].mb;
        count_work(1);
        const double start = std::max(compute_ready[s], dep);
        const double dur = c.forward ? mb.forward_ms : mb.backward_ms;
        const double finish = start + dur;
        compute_ready[s] = finish;
        if (!c.forward) last_backward_start[s] = start;
        compute_span(s, {c.forward ? "forward" : "backward", c.mb, start, finish});
        (c.forward ? f_done : b_done)[s][c.mb] = finish;
        const bool sends = c.forward ? s + 1 < pp : s > 0;
        if (sends) {
          const double t0 = std::max(comm_ready[s], finish);
          const double t1 = t0 + st[s].send_ms;
          comm_ready[s] = t1;
          comm_span(s, {c.forward ? "send activations" : "send gradients", c.mb, t0, t1});
          (c.forward ? f_sent : b_sent)[s][c.mb] = t1;
        } else {
          (c.forward ? f_sent : b_sent)[s][c.mb] = finish;
        }
        ++next[s];
        progress = true;
      }
    }
  }
  for (int s = 0; s < pp; ++s)
    if (next[s] != orders[s].size()) throw Error("pipeline schedule deadlocked (internal)");

  // data-parallel gradient buckets during each stage's last backward, on their own stream
  double step = 0;
  for (int s = 0; s < pp; ++s) {
    const StageTimes& t = st[s];
    double end = compute_ready[s];
    double dp_ready = 0;
    // ZeRO-3: the backward's parameter gathers share the dp group's stream; a bucket waits for
    // every gather issued before it was ready (FIFO); a gather issued later is not delayed
    const auto& gathers = t.mb.backward_gathers;
    std::size_t gi = 0;
    for (std::size_t i = 0; i < t.mb.buckets.size(); ++i) {
      double t0 = std::max(dp_ready, last_backward_start[s] + t.mb.buckets[i].ready_ms);
      for (; gi < gathers.size() && gathers[gi].issued_ms <= t.mb.buckets[i].ready_ms; ++gi)
        t0 = std::max(t0, last_backward_start[s] + gathers[gi].finish_ms);
      dp_ready = t0 + t.bucket_ms[i];
      comm_span(s, {"gradient bucket (dp)", m - 1, t0, dp_ready});
    }
    const double tail = std::max(0.0, dp_ready - end);
    end = std::max(end, dp_ready);
    if (t.after_step_ms > 0) {
      comm_span(s, {"parameter all-gather (ZeRO)", -1, end, end + t.after_step_ms});
      end += t.after_step_ms;
    }
    StageStreams& o = out[s];
    o.exposed_comm_ms =
        m * (t.mb.forward_exposed_ms + t.mb.backward_exposed_ms) + tail + t.after_step_ms;
    o.compute_busy_ms = m * (t.mb.forward_ms + t.mb.backward_ms) -
                        m * (t.mb.forward_exposed_ms + t.mb.backward_exposed_ms);
    o.comm_busy_ms = comm_busy[s];
    step = std::max(step, end);
    o.bubble_ms = end;  // set to the idle share once the step is known
  }
  for (auto& o : out) o.bubble_ms = std::max(0.0, step - o.compute_busy_ms - o.exposed_comm_ms);
  return step;
}

}  // namespace tilecast::detail
