#include "comm/path.hpp"

#include <algorithm>

namespace tilecast::comm {
namespace {

Path intra_node(const SystemSpec& s, int gpus, CommFamily family) {
  switch (s.topology) {
    case Topology::kNvswitch: return {LinkClass::kNvswitch, s.link_bw_gbps_per_direction};
    case Topology::kNvlinkPairs:
      if (gpus <= 2) return {LinkClass::kNvlinkBridge, s.link_bw_gbps_per_direction};
      return {LinkClass::kPcie, s.pcie_bw_gbps_per_direction};
    case Topology::kPcie: return {LinkClass::kPcie, s.pcie_bw_gbps_per_direction};
    case Topology::kInfinityFabricMesh: {
      const int peers = std::max(1, s.gpus_per_node - 1);
      const double links_per_peer = std::max(1, s.links_per_gpu / peers);
      if (family == CommFamily::kP2p)
        return {LinkClass::kInfinityFabric, s.link_bw_gbps_per_direction * links_per_peer};
      const double used = std::min<double>(s.links_per_gpu, links_per_peer * (gpus - 1));
      return {LinkClass::kInfinityFabric, s.link_bw_gbps_per_direction * used};
    }
  }
  return {LinkClass::kPcie, s.pcie_bw_gbps_per_direction};
}

}  // namespace

Path slowest_hop(const SystemSpec& system, const Placement& where, CommFamily family) {
  if (where.nodes <= 1) return intra_node(system, where.gpus, family);
  // Point-to-point traffic leaves through one adapter; rings and trees spread over one
  // adapter per GPU on the node, up to the adapters there are.
  const int nics =
      family == CommFamily::kP2p ? 1 : std::min(system.network->nics_per_node, where.gpus_per_node);
  double bw = nics * system.network->nic_gbit_per_s / 8.0;
  if (where.gpus_per_node > 1)
    bw = std::min(bw, intra_node(system, where.gpus_per_node, family).bw_gbps);
  return {LinkClass::kNetwork, bw};
}

}  // namespace tilecast::comm
