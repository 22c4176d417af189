// All-to-all (expert-parallel token exchange): every GPU sends a 1/n slice of its buffer to
// each peer. On one node all peers are reached at once: n-1 steps, (n-1)/n of the buffer
// leaves each GPU. Across nodes the off-node slices, (n-g)/n of the buffer with g GPUs per
// node, share the node's network, so each GPU gets 1/g of it.
#include "comm/collective.hpp"

namespace tilecast::comm {
namespace {

CollectiveCost all_to_all_cost(CommAlgorithm, const Placement& where) {
  const double n = where.gpus, g = where.gpus_per_node;
  if (where.nodes > 1) return {n - 1, (n - g) / n, 1.0 / g};
  return {n - 1, (n - 1) / n, 1.0};
}

}  // namespace

const CollectiveModel& all_to_all_model() {
  static const CollectiveModel m{Collective::kAllToAll, CommFamily::kCollective, false, false,
                                 all_to_all_cost};
  return m;
}

}  // namespace tilecast::comm
