// Serving pass timing: the eager replay and the fused sum over the shared kernel cache.
#include "serve/step.hpp"

#include <vector>

#include "forecast/timeline.hpp"

namespace tilecast::detail {

double StepClock::forward_ms(const OpGraph& graph) {
  if (engine_ == Engine::fused) {
    double total = 0;
    for (const auto& s : graph.sections) {
      double section = 0;
      for (const auto& o : s.ops)
        if (o.phase == Phase::forward) section += times_.op(o).exec_ms;
      total += section * double(s.count);
    }
    return total;
  }
  Timeline t;
  for (const auto& s : graph.sections) {
    std::vector<TimedKernel> ops;
    ops.reserve(s.ops.size());
    for (const auto& o : s.ops)
      if (o.phase == Phase::forward) ops.push_back(times_.op(o));
    for (std::int64_t r = 0; r < s.count; ++r)
      for (const TimedKernel& k : ops) launch(t, k);
  }
  return t.ready_ms(Stream::compute);
}

}  // namespace tilecast::detail
