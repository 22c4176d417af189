// The engine loop (header). The continuous scheduler follows vLLM v1's Scheduler.schedule():
// running requests first, front to back, each given min(its uncomputed tokens, the step's token
// budget) (1 when decoding); when its blocks do not fit, the last running request is preempted
// (its blocks freed, its cache recomputed later: prompt and generated tokens prefilled again) and
// put at the front of the queue; then, if nothing was preempted, waiting requests in arrival
// order while sequences, budget and blocks allow. A request samples a token when its whole known
// sequence is in the cache. The no-evict scheduler (TensorRT-LLM's GUARANTEED_NO_EVICT) is the
// same loop with admission reserving a request's blocks for its prompt and whole output: a
// running request never needs a block it does not hold, so none is preempted.
#include "serve/simulator/engine.hpp"

#include <algorithm>
#include <cmath>
#include <deque>

#include "forecast/work_budget.hpp"
#include "tilecast/error.hpp"

namespace tilecast::detail {
namespace {

// The budget is checked again as the run goes, every this many steps (preemptions recompute).
constexpr std::int64_t kBudgetCheckSteps = 4096;

double sequence_steps_work(double sequence_steps) {
  return sequence_steps * kReplayStepsPerSimulatedSequenceStep;
}

struct Loop {
  std::vector<SimRequest>& reqs;
  const EngineLimits& lim;
  StepCost& cost;
  EngineRun run;
  double now = 0;
  std::size_t next = 0;    // the next request not yet queued
  std::size_t issued = 0;  // requests whose arrival is known
  std::size_t done = 0;
  std::int64_t free_blocks = 0;
  std::deque<std::size_t> waiting;

  std::int64_t blocks_for(std::int64_t tokens) const {
    return (tokens + lim.block_tokens - 1) / lim.block_tokens;
  }
  // when a request reaches the scheduler: its arrival and its host work (tokenisation)
  double ready_ms(std::size_t i) const { return reqs[i].arrival_ms + reqs[i].host_ms; }
  void admit() {
    while (next < issued && ready_ms(next) <= now) waiting.push_back(next++);
  }
  // Nothing to run: jump to the next arrival.
  void idle() {
    if (next >= issued) throw Error("internal: the serving simulation has nothing to run");
    now = std::max(now, ready_ms(next));
  }
  void finish(SimRequest& r, double at_ms) {
    r.finish_ms = at_ms;
    free_blocks += r.blocks;
    r.blocks = 0;
    ++done;
    if (lim.clients > 0 && issued < reqs.size()) reqs[issued++].arrival_ms = at_ms;
  }
  void record(std::int64_t tokens, std::int64_t seqs) {
    ++run.steps;
    run.sequence_steps += seqs;
    count_work(sequence_steps_work(double(seqs)));
    if (run.steps % kBudgetCheckSteps == 0)
      require_within_budget(sequence_steps_work(double(run.sequence_steps)),
                            "serving simulation (so far, with its preemptions)",
                            "requests, output tokens or max_seqs");
    run.sum_seqs += double(seqs);
    run.sum_tokens += double(tokens);
    run.kv_use.emplace_back(now, double(lim.blocks - free_blocks) / double(lim.blocks));
  }
  // A request's new tokens are in the cache: it samples one when its known tokens all are.
  void computed(SimRequest& r, std::int64_t n) {
    r.computed += n;
    if (r.computed < r.known) return;
    ++r.generated;
    ++r.known;
    if (r.first_ms < 0) r.first_ms = now;
  }

  // reserve_whole: the no-evict scheduler's admission (see the header)
  void continuous(bool reserve_whole) {
    std::vector<std::size_t> running;
    std::vector<std::pair<std::size_t, std::int64_t>> scheduled;
    while (done < reqs.size()) {
      admit();
      if (running.empty() && waiting.empty()) {
        idle();
        continue;
      }
      scheduled.clear();
      std::int64_t budget = lim.max_batch_tokens;
      bool preempted = false;
      for (std::size_t i = 0; i < running.size() && budget > 0; ++i) {
        SimRequest& r = reqs[running[i]];
        const std::int64_t n = std::min(r.known - r.computed, budget);
        const std::int64_t need = std::max<std::int64_t>(0, blocks_for(r.computed + n) - r.blocks);
        bool self = false;
        while (need > free_blocks) {  // preempt the lowest priority: the last running
          const std::size_t v = running.back();
          running.pop_back();
          SimRequest& victim = reqs[v];
          free_blocks += victim.blocks;
          victim.blocks = 0;
          victim.computed = 0;
          waiting.push_front(v);
          ++run.preemptions;
          preempted = true;
          if (&victim == &r) {
            self = true;
            break;
          }
        }
        if (self) break;
        free_blocks -= need;
        r.blocks += need;
        budget -= n;
        scheduled.emplace_back(running[i], n);
      }
      if (!preempted) {
        while (!waiting.empty() && std::int64_t(running.size()) < lim.max_seqs && budget > 0) {
          SimRequest& r = reqs[waiting.front()];
          const std::int64_t n = std::min(r.known - r.computed, budget);
          const std::int64_t need =
              (reserve_whole ? blocks_for(r.prompt + r.output) : blocks_for(r.computed + n)) -
              r.blocks;
          if (need > free_blocks) break;
          free_blocks -= need;
          r.blocks += need;
          budget -= n;
          running.push_back(waiting.front());
          scheduled.emplace_back(waiting.front(), n);
          waiting.pop_front();
        }
      }
      if (scheduled.empty()) throw Error("internal: the serving simulation scheduled nothing");
      AttentionLoad attention;
      std::int64_t tokens = 0;
      for (const auto& [i, n] : scheduled) {
        attention.add(reqs[i].computed, n, cost.window());
        tokens += n;
      }
      now += cost.step_ms(tokens, std::int64_t(scheduled.size()), attention);
      record(tokens, std::int64_t(scheduled.size()));
      for (const auto& [i, n] : scheduled) computed(reqs[i], n);
      std::erase_if(running, [&](std::size_t i) {
        SimRequest& r = reqs[i];
        if (r.generated < r.output) return false;
        finish(r, now);
        return true;
      });
    }
  }

  // Static batches: when the engine is idle, the queued requests (up to max_seqs, and as many as
  // the cache holds at prompt + output tokens each) are prefilled together and decoded together
  // until the longest finishes; finished sequences stay in the batch.
  void static_batches() {
    std::vector<std::size_t> batch;
    while (done < reqs.size()) {
      admit();
      if (waiting.empty()) {
        idle();
        continue;
      }
      batch.clear();
      std::int64_t free = lim.blocks, longest = 0, tokens = 0;
      while (!waiting.empty() && std::int64_t(batch.size()) < lim.max_seqs) {
        SimRequest& r = reqs[waiting.front()];
        const std::int64_t need = blocks_for(r.prompt + r.output);
        if (need > free) break;
        free -= need;
        r.blocks = need;
        batch.push_back(waiting.front());
        waiting.pop_front();
        longest = std::max(longest, r.output);
        tokens += r.prompt;
      }
      free_blocks = free;
      AttentionLoad prefill;
      for (std::size_t i : batch) prefill.add(0, reqs[i].prompt, cost.window());
      const auto seqs = std::int64_t(batch.size());
      now += cost.step_ms(tokens, seqs, prefill);
      record(tokens, seqs);
      for (std::size_t i : batch) computed(reqs[i], reqs[i].prompt);
      for (std::int64_t s = 1; s < longest; ++s) {
        AttentionLoad decode;
        for (std::size_t i : batch) decode.add(reqs[i].prompt + s - 1, 1, cost.window());
        now += cost.step_ms(seqs, seqs, decode);
        record(seqs, seqs);
        for (std::size_t i : batch)
          if (reqs[i].generated < reqs[i].output) {
            ++reqs[i].generated;
            if (reqs[i].generated == reqs[i].output) reqs[i].finish_ms = now;
          }
      }
      for (std::size_t i : batch) {
        SimRequest& r = reqs[i];
        finish(r, r.finish_ms < 0 ? now : r.finish_ms);
      }
    }
  }
};

}  // namespace

EngineRun run_engine(std::vector<SimRequest>& requests, const EngineLimits& limits,
                     StepCost& cost) {
  if (limits.blocks < 1 || limits.block_tokens < 1 || limits.max_seqs < 1 ||
      limits.max_batch_tokens < 1)
    throw Error("internal: bad engine limits");
  Loop loop{requests, limits, cost, {}, 0, 0, 0, 0, 0, {}};
  loop.free_blocks = limits.blocks;
  loop.issued =
      limits.clients > 0
          ? std::size_t(std::min<std::int64_t>(limits.clients, std::int64_t(requests.size())))
          : requests.size();
  for (SimRequest& r : requests) {
    r.known = r.prompt;
    r.computed = r.generated = r.blocks = 0;
    r.first_ms = r.finish_ms = -1;
  }
  if (limits.scheduler == Scheduler::static_batch)
    loop.static_batches();
  else
    loop.continuous(limits.scheduler == Scheduler::no_evict);
  return std::move(loop.run);
}

double simulation_work(const LoadRequest& r) {
  const bool from_trace = !r.trace.empty();
  const double n = r.arrivals == Arrivals::trace ? double(r.trace.size()) : double(r.requests);
  // a prefill chunk: the step's token budget less one token for each other running sequence
  const double chunk =
      std::max(1.0, double(r.max_batch_tokens) -
                        double(std::min<std::int64_t>(r.max_seqs, std::int64_t(n))) + 1);
  auto continuous = [&](double prompt, double output) {
    return output + std::ceil(prompt / chunk);
  };
  double steps = 0;
  if (r.scheduler != Scheduler::static_batch) {
    if (!from_trace) {
      steps = n * continuous(double(length_range(r.serving.prompt, r.range_ratio).second),
                             double(length_range(r.serving.output, r.range_ratio).second));
    } else {
      // the trace's lengths, cycled over the requests
      double per_pass = 0;
      for (const TraceRequest& t : r.trace)
        per_pass += continuous(double(t.prompt), double(t.output));
      const double passes = std::floor(n / double(r.trace.size()));
      steps = passes * per_pass;
      for (std::size_t i = 0; i < std::size_t(n) % r.trace.size(); ++i)
        steps += continuous(double(r.trace[i].prompt), double(r.trace[i].output));
    }
  } else {
    // every sequence of a batch stays to its batch's longest output: at most the longest of all
    double longest = double(length_range(r.serving.output, r.range_ratio).second);
    if (from_trace) {
      longest = 0;
      for (const TraceRequest& t : r.trace) longest = std::max(longest, double(t.output));
    }
    steps = n * (1 + longest);
  }
  return sequence_steps_work(steps);
}

bool is_run_caveat(std::string_view line) {
  for (std::string_view opening : kRunCaveatOpenings)
    if (line.starts_with(opening)) return true;
  return false;
}

}  // namespace tilecast::detail
