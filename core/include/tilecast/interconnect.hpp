// A GPU's links to its peers and its host (NVLink, PCIe, AMD Infinity Fabric), read from the
// "interconnect" object of a gpu_catalog file. Kept out of GpuSpec for now so the GPU parser
// stays untouched; it can become a GpuSpec member later (see docs/comm.md).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tilecast {

struct NvlinkSpec {
  int generation = 0;                // 2 (Volta) .. 5 (Blackwell)
  int links = 0;                     // NVLink links per GPU
  double bw_gbps_per_direction = 0;  // all links together, GB/s each way
  std::string form;                  // "bridge" (card pairs) or "baseboard" (SXM/OAM, NVSwitch)
};

struct PcieSpec {
  int generation = 0;                // 3 .. 6
  int lanes = 0;                     // usually 16
  double bw_gbps_per_direction = 0;  // GB/s each way (the datasheet's figure halved)
  bool peer_to_peer = true;  // false: GPUs cannot reach each other's memory (GeForce); NCCL goes
                             // through host memory (docs/comm.md)
};

struct InfinityFabricSpec {
  int links = 0;                              // GPU-to-GPU links
  double bw_gbps_per_direction_per_link = 0;  // GB/s each way on one link
};

struct GpuInterconnect {
  std::optional<NvlinkSpec> nvlink;  // absent: the GPU has no NVLink
  std::optional<PcieSpec> pcie;      // absent: no PCIe host link (GB200: NVLink-C2C)
  std::optional<InfinityFabricSpec> infinity_fabric;
  double nvlink_c2c_bw_gbps_per_direction = 0;  // Grace-Blackwell CPU link; 0 when absent
  std::string source;                           // "interconnect_source"
};

// Reads "interconnect" and "interconnect_source" from a GPU file (catalog format); a file
// without them gives an empty GpuInterconnect. Errors name `origin` and the field.
GpuInterconnect parse_gpu_interconnect(std::string_view gpu_json, std::string_view origin);

// The catalog entry's links, matched like find_gpu (id, name or alias); nullptr when the GPU
// is not in the catalog.
const GpuInterconnect* catalog_interconnect(std::string_view gpu_name);

// {"nvlink": {...}, "pcie": {...}, "infinity_fabric": {...}, "source": "..."}.
std::string gpu_interconnect_to_json(const GpuInterconnect& links);

}  // namespace tilecast
