// The work a request may cost, estimated before it runs: replaying a kernel graph costs one
// step per kernel launch (each section's ops times its repeats), a pipeline schedule one per
// micro-batch chunk per stage, a plan search both for each configuration it replays, a serving
// simulation its sequence-steps (weighted by their measured cost). A request estimated over the
// budget (about 1 s natively; docs/fuzzing.md) is refused with an Error naming what to reduce,
// so no request hangs a page or a server. This is the one place that decides.
#pragma once

#include <string>
#include <string_view>

#include "tilecast/error.hpp"
#include "tilecast/op_graph.hpp"

namespace tilecast::detail {

// Replay steps one request may take. Measured natively (docs/fuzzing.md, "Work budget"): about
// 1 s at the slowest kind of counted step (a serving simulation's sliding-window decode stretches
// of a mixture of experts, 7 Dec 2026; 4e6 until then, which refused MLPerf-sized offline runs).
// The fuzz builds set a smaller budget (TILECAST_MAX_REPLAY_STEPS, CMakeLists.txt): under the
// sanitizers a request runs several hundred times slower, and the harness's timeout then
// stays a test that the estimate bounds the work.
#ifndef TILECAST_MAX_REPLAY_STEPS
#define TILECAST_MAX_REPLAY_STEPS 1e7
#endif
inline constexpr double kMaxReplaySteps = TILECAST_MAX_REPLAY_STEPS;

// The serving simulator's work in replay steps' time (docs/fuzzing.md, "Work budget"): one engine
// step's own (its batch timed, the cache's use recorded), and one sequence-step's (a sequence
// scheduled in a step run by itself: its tokens, attention and bookkeeping; a decode stretch,
// serve/simulator/engine.cpp, takes less per sequence for the whole stretch, below).
inline constexpr double kReplayStepsPerSimulatedStep = 2;
inline constexpr double kReplayStepsPerSimulatedSequenceStep = 0.5;
// A decode stretch's bookkeeping, per sequence of its batch (its loops before and after the
// stretch's steps, nothing per step): half a scheduled sequence-step's (bench/serve_work_bench,
// "staggered finishes": closed-loop clients whose requests finish a step or two apart, each
// stretch cut short by the next arrival; the heaviest kind per counted step, sliding windows,
// still at about 1 s natively at the budget).
inline constexpr double kReplayStepsPerStretchedSequence = 0.25;

// Kernel launches one replay of `g` takes: each section's ops x its repeats.
double replay_steps(const OpGraph& g);

// The refusal: an Error of its own type, so a search that tries candidates (and takes a
// candidate's Error for its failure) can tell a request over the budget apart and rethrow it.
class OverBudget : public Error {
 public:
  using Error::Error;
};

// Throws OverBudget("<what>: about N steps of work ..., over the budget of M per request (about
// 1 s natively); reduce <reduce>") when steps > kMaxReplaySteps (or is not a number).
void require_within_budget(double steps, std::string_view what, std::string_view reduce);

// A request's work counted as it runs, for work no estimate before it bounds closely (a serving
// simulation's: its steps depend on the batches it forms). The outermost meter on the thread
// opens the request (a capacity plan's, around its simulations' own); spend() counts work and,
// before the request's work since then would pass the budget, throws OverBudget naming the
// outermost meter's `what` and `reduce` instead.
class WorkMeter {
 public:
  WorkMeter(std::string_view what, std::string_view reduce);
  ~WorkMeter();
  WorkMeter(const WorkMeter&) = delete;
  WorkMeter& operator=(const WorkMeter&) = delete;
  void spend(double steps);
  double spent() const;  // the request's work so far (since the outermost meter opened)

 private:
  std::string what_, reduce_;
  bool outermost_;
};

// What the budget saw on this thread since the last reset, for the tests and benchmarks that
// check every request was estimated (not timed) and did no more work than the budget allows.
struct WorkLedger {
  int estimates = 0;            // require_within_budget calls
  double largest_estimate = 0;  // in replay steps
  double work_done = 0;         // replay steps counted as they run (count_work)
};
inline thread_local WorkLedger g_work_ledger;
inline WorkLedger& work_ledger() { return g_work_ledger; }
inline void reset_work_ledger() { g_work_ledger = WorkLedger{}; }
// Counts work as it is done (kernel launches replayed, pipeline chunks, simulated
// sequence-steps): a few nanoseconds against the ~60 ns of the cheapest step.
inline void count_work(double steps) { g_work_ledger.work_done += steps; }

}  // namespace tilecast::detail
