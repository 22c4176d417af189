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

}  // namespace tilecast::detail
