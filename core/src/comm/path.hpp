// The slowest hop a collective crosses on a system, by topology (docs/comm.md):
// NVSwitch: the GPU's NVLink bandwidth; NVLink pairs: the bridge for 2 GPUs, PCIe beyond;
// PCIe: the GPU's PCIe link; Infinity Fabric mesh: the links to the peers involved;
// several nodes: the network adapters in use.
#pragma once

#include "comm/collective.hpp"

namespace tilecast::comm {

struct Path {
  LinkClass link = LinkClass::kPcie;
  double bw_gbps = 0;  // per direction, datasheet
};

Path slowest_hop(const SystemSpec& system, const Placement& where, CommFamily family);

}  // namespace tilecast::comm
