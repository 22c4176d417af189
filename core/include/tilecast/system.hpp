// A multi-GPU system as data: which GPU, how many per node, how they are wired (NVSwitch,
// NVLink-bridged pairs, PCIe only, an Infinity Fabric mesh) and the network between nodes.
// Catalog entries live in gpu_catalog/systems/ (embedded); custom ones come as JSON text.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tilecast {

enum class Topology {
  kNvswitch,            // every GPU reaches every other at its full NVLink bandwidth
  kNvlinkPairs,         // NVLink bridges join GPUs in pairs; pairs meet over PCIe
  kPcie,                // PCIe only (through the host or a PCIe switch)
  kInfinityFabricMesh,  // AMD: direct GPU-to-GPU Infinity Fabric links
};

struct NetworkSpec {
  std::string kind;           // e.g. "InfiniBand HDR"
  int nics_per_node = 0;      // network adapters for GPU traffic
  double nic_gbit_per_s = 0;  // line rate of one adapter, Gb/s (bits)
};

struct SystemSpec {
  std::string id;
  std::string name;
  std::vector<std::string> aliases;  // other names (e.g. Vidur's node names)
  std::string gpu;                   // gpu_catalog id
  int gpus_per_node = 0;
  Topology topology = Topology::kPcie;
  // GB/s each way. nvswitch: one GPU into the switch fabric; nvlink-pairs: the bridge within
  // a pair; infinity-fabric-mesh: one link. Unused for pcie.
  double link_bw_gbps_per_direction = 0;
  int links_per_gpu = 0;                  // infinity-fabric-mesh: peer links per GPU
  double pcie_bw_gbps_per_direction = 0;  // one GPU's PCIe path
  // nvswitch only: the switches reduce and multicast (NVLink SHARP, third-generation NVSwitch
  // onwards), so NCCL's NVLS all-reduce runs inside a node (comm/all_reduce.cpp)
  bool nvlink_sharp = false;
  int max_nodes = 1;
  std::optional<NetworkSpec> network;  // absent: multi-node forecasts are refused
  std::string source;
  std::string notes;
};

std::string_view topology_name(Topology t);  // "nvswitch", "nvlink-pairs", ...

// Parses and validates a system file. Bandwidths left out of "intra_node" come from the GPU's
// catalog interconnect (gpu_catalog/README.md). Errors name `origin` and the field.
SystemSpec parse_system_spec(std::string_view json_text, std::string_view origin);
std::string system_spec_to_json(const SystemSpec& system);

// One node of `gpus` GPUs of `gpu_id` wired as the GPU's catalog links say (gpu_catalog/README.md,
// `interconnect`): NVLink on a baseboard an NVSwitch node, NVLink bridges pairs meeting over PCIe,
// Infinity Fabric a mesh of its links, else PCIe; bandwidths from the same links. For a GPU no
// catalog system holds (serving's tensor and expert parallelism, serve/tensor_parallel.hpp), so
// its collectives take the comm model rather than a bandwidth bound. nullopt when the catalog
// gives the GPU no links.
std::optional<SystemSpec> node_of_catalog_links(std::string_view gpu_id, std::string_view gpu_name,
                                                int gpus);
// A node built from a GPU's catalog links holds at most this many when a request names no system
// (system_for_gpus, tilecast/parallel.hpp): every catalog system but the GB200 NVL72 rack holds 8
// or fewer a node (gpu_catalog/systems), as PCIe servers do.
inline constexpr int kMaxBuiltNodeGpus = 8;

// The embedded gpu_catalog/systems/*.json, sorted by id.
const std::vector<SystemSpec>& system_catalog();
// Case-insensitive match on id, name or alias ignoring ' ', '-', '_', '.'; nullptr if none.
const SystemSpec* lookup_system(std::string_view name);
// The same; throws tilecast::Error listing the catalog when nothing matches.
const SystemSpec& find_system(std::string_view name);
// The catalog's ids, comma-separated, for the errors that list them.
std::string system_catalog_ids();
// A system a request or command names: a catalog system (lookup_system), else the id a node built
// from a catalog GPU's links carries ("rtx-4090-node-4": the GPU by id, name or alias, then up to
// kMaxBuiltNodeGpus), so an id a forecast prints can be given back. Throws Error saying both.
SystemSpec system_named(std::string_view name);

}  // namespace tilecast
