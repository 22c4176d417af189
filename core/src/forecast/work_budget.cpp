#include "forecast/work_budget.hpp"

#include <algorithm>
#include <string>

#include "common/format.hpp"
#include "tilecast/error.hpp"

namespace tilecast::detail {

double replay_steps(const OpGraph& g) {
  double steps = 0;
  for (const auto& s : g.sections) steps += double(s.ops.size()) * double(s.count);
  return steps;
}

void require_within_budget(double steps, std::string_view what, std::string_view reduce) {
  WorkLedger& l = work_ledger();
  ++l.estimates;
  l.largest_estimate = std::max(l.largest_estimate, steps);
  if (steps <= kMaxReplaySteps) return;
  throw OverBudget(
      std::string(what) + ": about " + format_g(steps) +
      " steps of work (kernel launches replayed, pipeline chunks, simulated sequences), "
      "over the budget of " +
      format_g(kMaxReplaySteps) + " per request (about 1 s natively); reduce " +
      std::string(reduce));
}

namespace {
// the outermost meter open on the thread (it names the request), and the ledger's work then
thread_local const WorkMeter* g_request = nullptr;
thread_local double g_request_start = 0;
}  // namespace

WorkMeter::WorkMeter(std::string_view what, std::string_view reduce)
    : what_(what), reduce_(reduce), outermost_(g_request == nullptr) {
  if (!outermost_) return;
  g_request = this;
  g_request_start = work_ledger().work_done;
}

WorkMeter::~WorkMeter() {
  if (outermost_) g_request = nullptr;
}

double WorkMeter::spent() const { return work_ledger().work_done - g_request_start; }

void WorkMeter::spend(double steps) {
  if (spent() + steps > kMaxReplaySteps)
    throw OverBudget(g_request->what_ + ": over the budget of " + format_g(kMaxReplaySteps) +
                     " steps of work per request (about 1 s natively) as it ran; reduce " +
                     g_request->reduce_);
  count_work(steps);
}

}  // namespace tilecast::detail
