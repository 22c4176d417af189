// Latency steps of a collective spanning nodes, split as NCCL's own tuning model splits them
// (NVIDIA/nccl src/graph/tuning.cc, ncclTopoTuneModel): a ring of n GPUs on k nodes takes its
// usual steps, of which 2k (all-reduce), k - 1 (reduce-scatter, all-gather) or k (the rest)
// cross the network and the others stay inside a node; NCCL's tree all-reduce goes up and down
// a chain inside each node (g - 1 steps) and a tree between nodes (ceil(log2 k) steps).
// Bandwidth is unchanged: the slowest hop (path.cpp). This is what makes a data-parallel ring
// over hundreds of nodes cost hundreds of network latencies, not thousands.
#include <algorithm>
#include <cmath>

#include "comm/collective.hpp"

namespace tilecast::comm {

HierarchicalSteps hierarchical_steps(Collective kind, CommAlgorithm algorithm,
                                     const Placement& where) {
  const double n = where.gpus, k = std::max(1, where.nodes), g = where.gpus_per_node;
  const double steps = collective_model(kind).cost(algorithm, where).steps;
  if (k <= 1) return {steps, 0};
  if (kind == Collective::kAllReduce && algorithm == CommAlgorithm::kTree)
    return {2 * (g - 1), 2 * std::ceil(std::log2(k))};
  double inter = k;
  if (kind == Collective::kAllReduce) inter = 2 * k;
  if (kind == Collective::kReduceScatter || kind == Collective::kAllGather) inter = k - 1;
  if (kind == Collective::kAllToAll) inter = n - g;  // every off-node peer, one message each
  inter = std::min(inter, steps);
  return {steps - inter, inter};
}

}  // namespace tilecast::comm
