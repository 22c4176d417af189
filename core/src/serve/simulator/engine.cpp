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
#include <limits>

#include "forecast/work_budget.hpp"
#include "tilecast/error.hpp"

namespace tilecast::detail {
namespace {

double sequence_steps_work(double sequence_steps) {
  return sequence_steps * kReplayStepsPerSimulatedSequenceStep;
}

struct Loop {
  std::vector<SimRequest>& reqs;
  const EngineLimits& lim;
  StepCost& cost;
  WorkMeter& meter;
  EngineRun run;
  double now = 0;
  std::size_t next = 0;    // the next request not yet queued
  std::size_t issued = 0;  // requests whose arrival is known
  std::size_t done = 0;
  std::int64_t free_blocks = 0;
  std::deque<std::size_t> waiting;
  std::vector<std::int64_t> cached_, block_phase_, window_phase_;  // decode_stretch's, reused

  std::int64_t blocks_for(std::int64_t tokens) const { return lim.units_for(tokens); }
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
  // A step run: its work (its own and `work_seqs` sequence-steps') counted, and refused first if
  // it would pass the budget.
  void record(std::int64_t tokens, std::int64_t seqs, std::int64_t work_seqs) {
    meter.spend(kReplayStepsPerSimulatedStep + sequence_steps_work(double(work_seqs)));
    ++run.steps;
    run.sequence_steps += seqs;
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
      if (lim.decode_stretches && decode_stretch(running, reserve_whole) > 0) {
        retire(running);
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
      record(tokens, std::int64_t(scheduled.size()), std::int64_t(scheduled.size()));
      for (const auto& [i, n] : scheduled) computed(reqs[i], n);
      retire(running);
    }
  }

  // Running requests that have their output finish now, in running order.
  void retire(std::vector<std::size_t>& running) {
    std::erase_if(running, [&](std::size_t i) {
      SimRequest& r = reqs[i];
      if (r.generated < r.output) return false;
      finish(r, now);
      return true;
    });
  }

  // A decode stretch (header): the steps the loop would run next while every running request
  // decodes one token a step and none can join, each timed by the same StepCost call on the same
  // attention sums (integers, summed exactly as the loop's doubles sum them: the stretch stops
  // short of sums past 2^52), the requests' bookkeeping done once for the stretch. Returns the
  // steps run; 0 when the next step is not one of a stretch.
  std::int64_t decode_stretch(std::vector<std::size_t>& running, bool reserve_whole) {
    const auto B = std::int64_t(running.size());
    if (B == 0 || B > lim.max_batch_tokens) return 0;
    const std::int64_t spare = lim.max_batch_tokens - B;  // the step's token budget left
    const bool may_join = B < lim.max_seqs && spare > 0;
    if (may_join && !waiting.empty()) {  // the queue's front joins unless its blocks do not fit
      const SimRequest& f = reqs[waiting.front()];
      const std::int64_t n = std::min(f.known - f.computed, spare);
      const std::int64_t need =
          (reserve_whole ? blocks_for(f.prompt + f.output) : blocks_for(f.computed + n)) - f.blocks;
      if (need <= free_blocks) return 0;  // (free blocks only fall until a request finishes)
    }
    const bool arrivals_join = may_join && waiting.empty() && next < issued;
    // the attention's sums exact (and no integer overflows): each request's (cached + 1)^2 below
    // 2^52 / B, so their sums stay below 2^52 to the stretch's last step
    constexpr double kExact = 4503599627370496.0;  // 2^52
    const auto limit = std::int64_t(std::floor(std::sqrt(kExact / double(B))));
    std::int64_t steps = std::numeric_limits<std::int64_t>::max(), top = 0, s1 = 0, s2 = 0;
    const std::int64_t bt = lim.block_tokens, window = cost.window();
    // a request whose cache starts a block takes its global layers' units, and its sliding-window
    // layers' too while it holds fewer than their window's blocks (EngineLimits::units_for): below
    // `window_tokens` cached tokens; the stretch ends before any request reaches that
    const std::int64_t window_tokens = lim.window_units > 0 ? lim.window_blocks * bt : 0;
    cached_.clear();
    if (!reserve_whole) {
      block_phase_.assign(std::size_t(bt), 0);
      window_phase_.assign(std::size_t(bt), 0);
    }
    // (newest first: a prompt still being computed is at the back, where requests join)
    for (auto it = running.rbegin(); it != running.rend(); ++it) {
      const SimRequest& r = reqs[*it];
      // a prompt (or its recomputation) in progress; a prompt's last token too, alone in its
      // step: computing it samples the first token, which only a step times
      if (r.known - r.computed != 1 || r.generated == 0) return 0;
      if (r.computed + 2 > limit) return 0;
      steps = std::min(steps, r.output - r.generated);
      top = std::max(top, r.computed);
      s1 += r.computed;
      s2 += r.computed * r.computed;
      if (!reserve_whole) {
        block_phase_[std::size_t(r.computed % bt)] += 1;
        if (r.computed < window_tokens) {
          window_phase_[std::size_t(r.computed % bt)] += 1;
          steps = std::min(steps, window_tokens - r.computed);
        }
      }
      if (window > 0) cached_.push_back(r.computed);
    }
    steps = std::min(steps, limit - top - 1);  // (at least 1: top + 2 <= limit)
    // a sliding window: the cached counts still below it, largest last
    std::sort(cached_.begin(), cached_.end());
    std::size_t below = cached_.size();
    std::int64_t below_sum = 0;
    for (std::int64_t c : cached_) below_sum += c;
    const double dB = double(B);
    // the requests' bookkeeping, before and after the stretch: a sequence-step each
    meter.spend(dB * kReplayStepsPerStretchedSequence);
    std::int64_t k = 0;
    for (; k < steps; ++k) {
      if (arrivals_join && ready_ms(next) <= now) break;
      if (!reserve_whole) {  // a block for each request whose cache fills its last one
        const auto phase = std::size_t((bt - k % bt) % bt);
        const std::int64_t need =
            lim.global_units * block_phase_[phase] + lim.window_units * window_phase_[phase];
        if (need > free_blocks) break;  // (the loop preempts)
        free_blocks -= need;
      }
      // each request's (cached + k) + 1 keys, those of its window: the sums over the batch
      const std::int64_t k1 = k + 1;
      double window_keys = 0;
      if (window > 0) {
        while (below > 0 && cached_[below - 1] + k1 >= window) below_sum -= cached_[--below];
        const auto n_below = std::int64_t(below);
        window_keys = double(below_sum + n_below * k1 + (B - n_below) * window);
      }
      now += cost.step_ms(B, B, AttentionLoad::decodes(B, s1, s2, k, window_keys));
      record(B, B, 0);  // the step's own work: the batch timed once
    }
    for (std::size_t i : running) {
      SimRequest& r = reqs[i];
      r.computed += k;
      r.generated += k;
      r.known += k;
      if (!reserve_whole) r.blocks = blocks_for(r.computed);
    }
    run.stretch_steps += k;
    return k;
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
      record(tokens, seqs, seqs);
      for (std::size_t i : batch) {
        computed(reqs[i], reqs[i].prompt);  // the first token
        if (reqs[i].generated == reqs[i].output) reqs[i].finish_ms = now;
      }
      for (std::int64_t s = 1; s < longest; ++s) {
        AttentionLoad decode;
        for (std::size_t i : batch) decode.add(reqs[i].prompt + s - 1, 1, cost.window());
        now += cost.step_ms(seqs, seqs, decode);
        record(seqs, seqs, seqs);
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

EngineRun run_engine(std::vector<SimRequest>& requests, const EngineLimits& limits, StepCost& cost,
                     WorkMeter& meter) {
  if (limits.blocks < 1 || limits.block_tokens < 1 || limits.max_seqs < 1 ||
      limits.global_units < 1 || limits.window_units < 0 || limits.window_blocks < 0 ||
      limits.max_batch_tokens < 1)
    throw Error("internal: bad engine limits");
  Loop loop{requests, limits, cost, meter, {}, 0, 0, 0, 0, 0, {}, {}, {}, {}};
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
  // the most sequences and tokens a step can take (trtllm-bench's limits and vLLM's defaults for
  // the GPU, a limit given as 0, are set later, within the simulator's own)
  const bool bench = r.batch_limits == BatchLimits::trtllm_bench;
  const double seqs = std::min(n, double(bench || r.max_seqs == 0 ? kMaxSeqsPerStep : r.max_seqs)),
               tokens = double(bench || r.max_batch_tokens == 0 ? kMaxBatchTokensPerStep
                                                                : r.max_batch_tokens);
  // a request's fewest sequence-steps: one per output token, prefill chunks of the whole budget
  // (a static batch's: its prompt, then to its longest output, at least its own)
  auto least = [&](double prompt, double output) {
    return output + (r.scheduler == Scheduler::static_batch ? 1 : std::ceil(prompt / tokens));
  };
  double sequence_steps = 0;
  if (!from_trace) {
    sequence_steps = n * least(double(length_range(r.serving.prompt, r.range_ratio).first),
                               double(length_range(r.serving.output, r.range_ratio).first));
  } else {
    // the trace's lengths, cycled over the requests
    double per_pass = 0;
    for (const TraceRequest& t : r.trace) per_pass += least(double(t.prompt), double(t.output));
    const double passes = std::floor(n / double(r.trace.size()));
    sequence_steps = passes * per_pass;
    for (std::size_t i = 0; i < std::size_t(n) % r.trace.size(); ++i)
      sequence_steps += least(double(r.trace[i].prompt), double(r.trace[i].output));
  }
  // each step its own work, a step run by itself each of its sequences' too (a static batch's
  // always; the others' at least a decode stretch's, none)
  const double steps = sequence_steps / std::max(1.0, seqs);
  return steps * kReplayStepsPerSimulatedStep +
         (r.scheduler == Scheduler::static_batch ? sequence_steps_work(sequence_steps) : 0);
}

bool is_run_caveat(std::string_view line) {
  for (std::string_view opening : kRunCaveatOpenings)
    if (line.starts_with(opening)) return true;
  return false;
}

}  // namespace tilecast::detail
