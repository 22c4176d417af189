// All-gather, ring: n-1 steps, each GPU forwards (n-1)/n of the gathered output (the message
// is the full output buffer). The other half of a ring all-reduce.
#include "comm/collective.hpp"

namespace tilecast::comm {
namespace {

CollectiveCost all_gather_cost(CommAlgorithm, const Placement& where) {
  const double n = where.gpus;
  return {n - 1, (n - 1) / n, 1.0};
}

}  // namespace

const CollectiveModel& all_gather_model() {
  static const CollectiveModel m{Collective::kAllGather, CommFamily::kCollective, false, false,
                                 all_gather_cost};
  return m;
}

}  // namespace tilecast::comm
