// The per-collective half of the communication model: how many latency steps a collective
// takes and how many bytes (as a multiple of the message) each GPU pushes through its slowest
// hop. One file per collective registers a CollectiveModel; forecast.cpp adds the path and
// the calibrated efficiency.
#pragma once

#include "tilecast/comm.hpp"

namespace tilecast::comm {

// Where the participating GPUs sit.
struct Placement {
  int gpus = 2;
  int nodes = 1;
  int gpus_per_node = 2;
};

struct CollectiveCost {
  double steps = 0;         // latency terms (alpha each)
  double bytes_factor = 0;  // bytes over the slowest hop per byte of message
  double bw_scale = 1;      // share of the path bandwidth one GPU gets (all-to-all off-node)
};

struct CollectiveModel {
  Collective kind;
  CommFamily family;
  bool has_tree;  // tree is a valid algorithm
  bool has_nvls;  // nvls is (on a system with NVLink SHARP, inside one node)
  CollectiveCost (*cost)(CommAlgorithm algorithm, const Placement& where);
};

// One per file (all_reduce.cpp, reduce_scatter.cpp, all_gather.cpp, send_recv.cpp,
// all_to_all.cpp); registry.cpp maps the kind to them.
const CollectiveModel& all_reduce_model();
const CollectiveModel& reduce_scatter_model();
const CollectiveModel& all_gather_model();
const CollectiveModel& send_recv_model();
const CollectiveModel& all_to_all_model();

const CollectiveModel& collective_model(Collective kind);

// A collective across nodes as NCCL's tuning model counts its latency (hierarchical.cpp):
// `intra` steps over NVLink / the node's fabric, `inter` steps over the network.
struct HierarchicalSteps {
  double intra = 0, inter = 0;
};
HierarchicalSteps hierarchical_steps(Collective kind, CommAlgorithm algorithm,
                                     const Placement& where);

// The model's one formula, shared by the forecast and the calibration fit:
// efficiency(s) = e_max s / (s + s_half); transfer = s x bytes_factor / (bw x efficiency).
inline double efficiency_at(const EfficiencyCurve& curve, double bytes) {
  return curve.e_max * bytes / (bytes + curve.s_half_bytes);
}
inline double latency_ms(const CollectiveCost& cost, const EfficiencyCurve& curve) {
  return cost.steps * curve.alpha_us * 1e-3;
}
inline double transfer_ms(const CollectiveCost& cost, double path_bw_gbps,
                          const EfficiencyCurve& curve, double bytes) {
  return bytes * cost.bytes_factor /
         (path_bw_gbps * cost.bw_scale * 1e9 * efficiency_at(curve, bytes)) * 1e3;
}

}  // namespace tilecast::comm
