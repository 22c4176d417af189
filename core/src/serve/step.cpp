// Serving pass timing: the eager replay and the fused sum over the shared kernel cache.
#include "serve/step.hpp"

#include <vector>

#include "forecast/timeline.hpp"

namespace tilecast::detail {

double StepClock::fused_forward_ms(const OpGraph& graph,
                                   std::vector<std::vector<double>>* charged) {
  if (charged) charged->assign(graph.sections.size(), {});
  double total = 0;
  for (std::size_t si = 0; si < graph.sections.size(); ++si) {
    const GraphSection& s = graph.sections[si];
    if (charged) (*charged)[si].assign(s.ops.size(), 0.0);
    double section = 0;
    for (std::size_t oi = 0; oi < s.ops.size(); ++oi)
      if (s.ops[oi].phase == Phase::forward) {
        const double ms = times_.op(s.ops[oi]).exec_ms;
        section += ms;
        if (charged) (*charged)[si][oi] = ms * double(s.count);
      }
    total += section * double(s.count);
  }
  return total;
}

double StepClock::forward_ms(const OpGraph& graph) {
  if (engine_ == Engine::fused) return fused_forward_ms(graph);
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
