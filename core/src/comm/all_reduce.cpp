// All-reduce, ring, tree and NVLS (NCCL's algorithms).
// Ring: a reduce-scatter then an all-gather around n GPUs: 2(n-1) steps, and each GPU sends
// 2(n-1)/n of the buffer. Tree (double binary tree): a reduce up and a broadcast down,
// pipelined: 2 ceil(log2 n) steps, each GPU sends the whole buffer up and down (factor 2).
// NVLS (NVLink SHARP, one node): each GPU owns 1/n of the buffer; a load-reduce through the
// switch fetches that share from every GPU and returns it summed, a multicast store through
// the switch writes the sum to every GPU. So each GPU's link carries its whole buffer plus its
// share each way, (n+1)/n of the buffer in 2 steps, where a ring's carries 2(n-1)/n (1.56x
// more at 8 GPUs). The switch's arithmetic is not a bound: it reduces at its port rate.
#include <cmath>

#include "comm/collective.hpp"

namespace tilecast::comm {
namespace {

CollectiveCost all_reduce_cost(CommAlgorithm algorithm, const Placement& where) {
  const double n = where.gpus;
  if (algorithm == CommAlgorithm::kTree) return {2 * std::ceil(std::log2(n)), 2.0, 1.0};
  if (algorithm == CommAlgorithm::kNvls) return {2, (n + 1) / n, 1.0};
  return {2 * (n - 1), 2 * (n - 1) / n, 1.0};
}

}  // namespace

const CollectiveModel& all_reduce_model() {
  static const CollectiveModel m{Collective::kAllReduce, CommFamily::kCollective, true, true,
                                 all_reduce_cost};
  return m;
}

}  // namespace tilecast::comm
