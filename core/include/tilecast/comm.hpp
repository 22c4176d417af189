// Collective communication forecasts on a multi-GPU system (docs/comm.md):
//   time = steps x alpha + bytes x bytes_factor / (path bandwidth x efficiency(bytes))
// with efficiency(s) = e_max x s / (s + s_half). steps and bytes_factor come from the
// collective (one file each in core/src/comm/); the path bandwidth from the system's topology;
// alpha, e_max and s_half from a calibration per link class and family (core/data/
// comm_calibration.json, fitted by `tilecast calibrate-comm`).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "tilecast/system.hpp"

namespace tilecast {

enum class Collective { kAllReduce, kReduceScatter, kAllGather, kSendRecv, kAllToAll };
// tree: all-reduce only; nvls: NCCL's NVLink SHARP all-reduce, the reduction done in the NVSwitch,
// inside one node of a system whose switches do it (SystemSpec::nvlink_sharp; comm/all_reduce.cpp)
enum class CommAlgorithm { kAuto, kRing, kTree, kNvls };
// The slowest hop a collective crosses; each class has its own calibrated curve.
enum class LinkClass { kNvswitch, kNvlinkBridge, kPcie, kInfinityFabric, kNetwork };
// Point-to-point copies and ring/tree collectives reach different efficiencies on one link.
enum class CommFamily { kCollective, kP2p };
// NCCL's protocols: Simple (the calibrated curve), LL and LL128 (small messages; NCCL's tuning
// model's latencies plus the calibrated launch cost, core/src/comm/protocol.cpp).
enum class CommProtocol { kSimple, kLl, kLl128 };

std::string_view collective_name(Collective c);      // "all_reduce", ...
Collective parse_collective(std::string_view name);  // throws Error listing the names
std::string_view comm_algorithm_name(CommAlgorithm a);
CommAlgorithm parse_comm_algorithm(std::string_view name);
std::string_view link_class_name(LinkClass c);        // "nvswitch", "nvlink-bridge", ...
std::string_view comm_family_name(CommFamily f);      // "collective", "p2p"
std::string_view comm_protocol_name(CommProtocol p);  // "simple", "ll", "ll128"

struct EfficiencyCurve {
  double alpha_us = 0;      // latency per algorithm step
  double e_max = 1;         // large-message fraction of the path bandwidth
  double s_half_bytes = 0;  // message size at which efficiency is e_max / 2
  // The per-call cost the low-latency protocols (LL, LL128) pay beyond NCCL's tuning-model
  // latency (kernel launch, waiting for the peers), fitted on the smallest messages; < 0:
  // not fitted, the forecast prices Simple only (docs/comm.md, "Small messages").
  double launch_us = -1;
};

struct CommCalibration {
  std::map<std::pair<LinkClass, CommFamily>, EfficiencyCurve> curves;
  std::string fitted_on;  // what the curves were fitted on, for people
  std::string command;    // the command that regenerates the file
};

CommCalibration parse_comm_calibration(std::string_view json_text, std::string_view origin);
std::string comm_calibration_to_json(const CommCalibration& calibration);
const CommCalibration& default_comm_calibration();  // the embedded core/data file

struct CollectiveRequest {
  Collective collective = Collective::kAllReduce;
  CommAlgorithm algorithm = CommAlgorithm::kAuto;
  double bytes = 0;  // per GPU: the full buffer (all-reduce, all-to-all, send), the
                     // reduce-scatter input, the all-gather output
  int gpus = 2;
  int gpus_per_node = 0;  // 0: fill nodes (min(gpus, system's gpus_per_node))
  // Across nodes, NCCL's hierarchical latency (comm/hierarchical.cpp): the steps inside a node
  // at the intra-node curve's latency, only the steps between nodes at the network's. false:
  // every step at the slowest hop's latency (what the calibration was fitted with).
  bool hierarchical = false;
};

struct CollectiveForecast {
  double time_ms = 0;
  double latency_ms = 0;                           // steps x alpha
  double transfer_ms = 0;                          // the bandwidth term
  CommAlgorithm algorithm = CommAlgorithm::kRing;  // the one used (auto resolved)
  CommProtocol protocol = CommProtocol::kSimple;   // the fastest of those priced
  double steps = 0;
  double bytes_factor = 0;  // bytes each GPU moves over its slowest hop / bytes
  LinkClass link = LinkClass::kPcie;
  double path_bw_gbps = 0;  // datasheet bandwidth of the slowest hop, per direction
  double efficiency = 0;    // efficiency(bytes)
  double bus_bw_gbps = 0;   // bytes x bytes_factor / time (nccl-tests' busbw; nvls: the ring's
                            // bytes factor, as nccl-tests reports every algorithm)
  int nodes = 1;
  int gpus_per_node = 1;
  std::string calibration;  // curve used, e.g. "nvswitch/collective"
  bool calibrated = true;   // false: the curve was borrowed from another class or family
};

// Throws Error for gpus outside 2..gpus_per_node x max_nodes, a multi-node request on a system
// without a network, bytes <= 0, tree on another collective than all-reduce, or nvls on another
// collective, across nodes or on a system whose NVSwitch does not reduce (auto picks nvls where
// it applies and is faster).
CollectiveForecast forecast_collective(
    const SystemSpec& system, const CollectiveRequest& request,
    const CommCalibration& calibration = default_comm_calibration());

}  // namespace tilecast
