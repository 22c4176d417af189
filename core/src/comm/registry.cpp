// From collective kind to its model, and the names used in JSON and on the command line.
#include <string>

#include "comm/collective.hpp"
#include "tilecast/error.hpp"

namespace tilecast {
namespace comm {

const CollectiveModel& collective_model(Collective kind) {
  switch (kind) {
    case Collective::kAllReduce: return all_reduce_model();
    case Collective::kReduceScatter: return reduce_scatter_model();
    case Collective::kAllGather: return all_gather_model();
    case Collective::kSendRecv: return send_recv_model();
    case Collective::kAllToAll: return all_to_all_model();
  }
  return all_reduce_model();
}

}  // namespace comm

std::string_view collective_name(Collective c) {
  switch (c) {
    case Collective::kAllReduce: return "all_reduce";
    case Collective::kReduceScatter: return "reduce_scatter";
    case Collective::kAllGather: return "all_gather";
    case Collective::kSendRecv: return "send_recv";
    case Collective::kAllToAll: return "all_to_all";
  }
  return "?";
}

Collective parse_collective(std::string_view name) {
  for (Collective c : {Collective::kAllReduce, Collective::kReduceScatter, Collective::kAllGather,
                       Collective::kSendRecv, Collective::kAllToAll})
    if (collective_name(c) == name) return c;
  throw Error("collective '" + std::string(name) +
              "' is unknown; allowed: all_reduce, reduce_scatter, all_gather, send_recv, "
              "all_to_all");
}

std::string_view comm_algorithm_name(CommAlgorithm a) {
  switch (a) {
    case CommAlgorithm::kAuto: return "auto";
    case CommAlgorithm::kRing: return "ring";
    case CommAlgorithm::kTree: return "tree";
  }
  return "?";
}

CommAlgorithm parse_comm_algorithm(std::string_view name) {
  for (CommAlgorithm a : {CommAlgorithm::kAuto, CommAlgorithm::kRing, CommAlgorithm::kTree})
    if (comm_algorithm_name(a) == name) return a;
  throw Error("algorithm '" + std::string(name) + "' is unknown; allowed: auto, ring, tree");
}

std::string_view link_class_name(LinkClass c) {
  switch (c) {
    case LinkClass::kNvswitch: return "nvswitch";
    case LinkClass::kNvlinkBridge: return "nvlink-bridge";
    case LinkClass::kPcie: return "pcie";
    case LinkClass::kInfinityFabric: return "infinity-fabric";
    case LinkClass::kNetwork: return "network";
  }
  return "?";
}

std::string_view comm_family_name(CommFamily f) {
  return f == CommFamily::kP2p ? "p2p" : "collective";
}

}  // namespace tilecast
