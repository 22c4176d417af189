// The simulated serving engine: requests admitted as they arrive and scheduled step by step as
// vLLM v1 does (continuous batching, chunked prefill, paged KV blocks, preemption by recompute),
// or in static batches, each step timed by StepCost.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <string_view>
#include <utility>
#include <vector>

#include "forecast/work_budget.hpp"
#include "serve/simulator/step_cost.hpp"
#include "tilecast/serving_load.hpp"

namespace tilecast::detail {

struct SimRequest {
  double arrival_ms = 0;  // closed loop: set when its client's previous request finishes
  std::int64_t prompt = 0, output = 0;
  double host_ms = 0;  // before it can be scheduled: tokenisation (serve/fixed_costs.hpp)
  // state
  std::int64_t known = 0;      // tokens known: prompt + generated
  std::int64_t computed = 0;   // tokens in the KV cache
  std::int64_t generated = 0;  // output tokens sampled
  std::int64_t blocks = 0;     // KV blocks held
  double first_ms = -1, finish_ms = -1;
};

struct EngineLimits {
  Scheduler scheduler = Scheduler::continuous;
  std::int64_t max_batch_tokens = 8192, max_seqs = 256, block_tokens = 16, blocks = 0;
  // What a request's cache holds at t tokens, in the units `blocks` counts: global_units x
  // blocks(t) + window_units x min(blocks(t), window_blocks). Without sliding-window layers one
  // unit is a block of every layer (1, 0); with them, one layer's block (the global layers, the
  // sliding ones, and the blocks a sliding layer keeps: those its window touches).
  std::int64_t global_units = 1, window_units = 0, window_blocks = 0;
  std::int64_t units_for(std::int64_t tokens) const {
    const std::int64_t b = (tokens + block_tokens - 1) / block_tokens;
    return global_units * b + window_units * std::min(b, window_blocks);
  }
  // closed loop: the first `clients` requests arrive at 0, each later one when one finishes
  std::int64_t clients = 0;
  // continuous: run decode stretches at once (engine.cpp; the same steps and numbers, fewer
  // operations: false only in tests that check so)
  bool decode_stretches = true;
};

struct EngineRun {
  std::int64_t steps = 0, preemptions = 0;
  std::int64_t sequence_steps = 0;  // sequences scheduled, summed over steps
  std::int64_t stretch_steps = 0;   // of the steps, those run in decode stretches
  double sum_seqs = 0, sum_tokens = 0;
  // after every step: (ms, fraction used); a deque, which grows without copying (a long run
  // records millions of steps)
  std::deque<std::pair<double, double>> kv_use;
};

// Runs every request to completion (requests in arrival order; closed loop: in issue order),
// each step's work spent on `meter` (forecast/work_budget.hpp), which throws OverBudget before
// the run passes the budget.
EngineRun run_engine(std::vector<SimRequest>& requests, const EngineLimits& limits, StepCost& cost,
                     WorkMeter& meter);

// The least work of simulating `r`, in the work budget's replay steps, before it runs: each
// request's fewest sequence-steps (continuous: one per output token and per prefill chunk of the
// whole token budget; static: its prompt and its output), in steps of the most sequences a step
// can take, each step its own work (kReplayStepsPerSimulatedStep; static steps each sequence's
// too). What it does beyond that (smaller batches, preemption) is counted as it runs. Requests
// and lengths are checked by simulate_serving; this only counts.
double simulation_work(const LoadRequest& r);

// The caveats that describe one simulation's own setup (its rate or clients, its scheduler's KV
// blocks, its batch limits), each line opening with one of these; a capacity plan, whose
// simulations differ in them, leaves them out.
inline constexpr std::string_view kRunCaveatOpenings[] = {
    "Arrivals: ", "Scheduler: ", "Batch limits: "};
bool is_run_caveat(std::string_view line);

}  // namespace tilecast::detail
