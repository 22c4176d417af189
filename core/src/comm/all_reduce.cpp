// All-reduce, ring and tree (NCCL's two algorithms).
// Ring: a reduce-scatter then an all-gather around n GPUs: 2(n-1) steps, and each GPU sends
// 2(n-1)/n of the buffer. Tree (double binary tree): a reduce up and a broadcast down,
// pipelined: 2 ceil(log2 n) steps, each GPU sends the whole buffer up and down (factor 2).
#include <cmath>

#include "comm/collective.hpp"

namespace tilecast::comm {
namespace {

CollectiveCost all_reduce_cost(CommAlgorithm algorithm, const Placement& where) {
  const double n = where.gpus;
  if (algorithm == CommAlgorithm::kTree) return {2 * std::ceil(std::log2(n)), 2.0, 1.0};
  return {2 * (n - 1), 2 * (n - 1) / n, 1.0};
}

}  // namespace

const CollectiveModel& all_reduce_model() {
  static const CollectiveModel m{Collective::kAllReduce, CommFamily::kCollective, true,
                                 all_reduce_cost};
  return m;
}

}  // namespace tilecast::comm
