// Reduce-scatter, ring: n-1 steps, each GPU sends (n-1)/n of its input buffer (the message
// is the full, unsharded input). Half of a ring all-reduce.
#include "comm/collective.hpp"

namespace tilecast::comm {
namespace {

CollectiveCost reduce_scatter_cost(CommAlgorithm, const Placement& where) {
  const double n = where.gpus;
  return {n - 1, (n - 1) / n, 1.0};
}

}  // namespace

const CollectiveModel& reduce_scatter_model() {
  static const CollectiveModel m{Collective::kReduceScatter, CommFamily::kCollective, false, false,
                                 reduce_scatter_cost};
  return m;
}

}  // namespace tilecast::comm
