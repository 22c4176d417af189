// Parsing and validation of multi-GPU system files (gpu_catalog/systems/, docs/comm.md), and the
// nodes built from a GPU's catalog links, by their ids too.
#include "tilecast/system.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "common/json_fields.hpp"
#include "tilecast/enum_names.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/interconnect.hpp"

namespace tilecast {
namespace {

using detail::bool_field;
using detail::has_field;
using detail::integer_field;
using detail::number_field;
using detail::string_field;
using detail::string_list_field;

// The most GPUs one node holds, and so the most adapters it carries (a rack-scale NVLink domain
// has a NIC per GPU: the GB200 NVL72's 72).
constexpr std::int64_t kMaxGpusPerNode = 1024;

constexpr EnumName<Topology> kTopologies[] = {
    {"nvswitch", Topology::kNvswitch},
    {"nvlink-pairs", Topology::kNvlinkPairs},
    {"pcie", Topology::kPcie},
    {"infinity-fabric-mesh", Topology::kInfinityFabricMesh}};

Topology parse_topology(const std::string& s, const std::string& origin) {
  if (auto t = find_enum(topology_names(), s)) return *t;
  throw Error(origin + ": field 'topology' is \"" + s +
              "\"; allowed: " + allowed_enum_names(topology_names()));
}

// Fills bandwidths the file leaves out from the GPU's catalog links.
void default_from_catalog(SystemSpec& s, const GpuInterconnect* links, const std::string& origin) {
  auto missing = [&](const char* field, const char* why) {
    return Error(origin + ": field 'intra_node." + std::string(field) + "' is missing and GPU '" +
                 s.gpu + "' " + why);
  };
  const bool needs_link = s.topology != Topology::kPcie;
  const bool needs_pcie = s.topology == Topology::kPcie || s.topology == Topology::kNvlinkPairs;
  if (needs_link && s.link_bw_gbps_per_direction <= 0) {
    if (s.topology == Topology::kInfinityFabricMesh) {
      if (!links || !links->infinity_fabric)
        throw missing("link_bw_gbps_per_direction", "has no catalog Infinity Fabric links");
      s.link_bw_gbps_per_direction = links->infinity_fabric->bw_gbps_per_direction_per_link;
    } else {
      if (!links || !links->nvlink)
        throw missing("link_bw_gbps_per_direction", "has no catalog NVLink");
      s.link_bw_gbps_per_direction = links->nvlink->bw_gbps_per_direction;
    }
  }
  if (s.topology == Topology::kInfinityFabricMesh && s.links_per_gpu <= 0)
    s.links_per_gpu =
        links && links->infinity_fabric ? links->infinity_fabric->links : s.gpus_per_node - 1;
  if (needs_pcie && s.pcie_bw_gbps_per_direction <= 0) {
    if (!links || !links->pcie) throw missing("pcie_bw_gbps_per_direction", "has no catalog PCIe");
    s.pcie_bw_gbps_per_direction = links->pcie->bw_gbps_per_direction;
  }
}

}  // namespace

EnumNames<Topology> topology_names() { return kTopologies; }

std::string_view topology_name(Topology t) { return enum_name(topology_names(), t); }

SystemSpec parse_system_spec(std::string_view json_text, std::string_view origin) {
  const std::string where(origin);
  const nlohmann::json j = detail::parse_json(json_text, origin);
  SystemSpec s;
  s.id = string_field(j, "id", origin);
  s.name = string_field(j, "name", origin, false);
  if (s.name.empty()) s.name = s.id;
  s.aliases = string_list_field(j, "aliases", origin);
  const std::string gpu = string_field(j, "gpu", origin);
  const GpuSpec* spec = lookup_gpu(gpu);
  s.gpu = spec ? spec->id : gpu;
  s.gpus_per_node = static_cast<int>(integer_field(j, "gpus_per_node", origin, 1, kMaxGpusPerNode));
  s.topology = parse_topology(string_field(j, "topology", origin), where);
  if (s.topology == Topology::kNvlinkPairs && s.gpus_per_node % 2 != 0)
    throw Error(where + ": field 'gpus_per_node' is " + std::to_string(s.gpus_per_node) +
                "; nvlink-pairs needs an even count");
  if (has_field(j, "intra_node")) {
    const auto& in = j["intra_node"];
    if (!in.is_object()) throw Error(where + ": field 'intra_node' must be an object");
    const std::string o = where + ": intra_node";
    if (has_field(in, "link_bw_gbps_per_direction"))
      s.link_bw_gbps_per_direction = number_field(in, "link_bw_gbps_per_direction", o, 0.1, 1e5);
    if (has_field(in, "pcie_bw_gbps_per_direction"))
      s.pcie_bw_gbps_per_direction = number_field(in, "pcie_bw_gbps_per_direction", o, 0.1, 1e4);
    if (has_field(in, "links_per_gpu"))
      s.links_per_gpu = static_cast<int>(integer_field(in, "links_per_gpu", o, 1, 64));
    s.nvlink_sharp = bool_field(in, "nvlink_sharp", o, false);
    if (s.nvlink_sharp && s.topology != Topology::kNvswitch)
      throw Error(o +
                  ": field 'nvlink_sharp' is true; only an nvswitch topology reduces in its "
                  "switches (this system's is " +
                  std::string(topology_name(s.topology)) + ")");
  }
  default_from_catalog(s, spec ? catalog_interconnect(spec->id) : nullptr, where);
  s.max_nodes = has_field(j, "max_nodes")
                    ? static_cast<int>(integer_field(j, "max_nodes", origin, 1, 100000))
                    : 1;
  if (has_field(j, "network")) {
    const auto& n = j["network"];
    if (!n.is_object()) throw Error(where + ": field 'network' must be an object");
    const std::string o = where + ": network";
    NetworkSpec net;
    net.kind = string_field(n, "kind", o, false);
    net.nics_per_node = static_cast<int>(integer_field(n, "nics_per_node", o, 1, kMaxGpusPerNode));
    net.nic_gbit_per_s = number_field(n, "nic_gbit_per_s", o, 1, 1e5);
    s.network = net;
  }
  if (s.max_nodes > 1 && !s.network)
    throw Error(where + ": field 'network' is missing; max_nodes > 1 needs one");
  s.source = string_field(j, "source", origin);
  s.notes = string_field(j, "notes", origin, false);
  return s;
}

namespace {
// A built node's id: the GPU's, this, its GPU count (node_of_catalog_links writes it,
// system_named reads it back).
constexpr std::string_view kBuiltNodeInfix = "-node-";
}  // namespace

std::optional<SystemSpec> node_of_catalog_links(std::string_view gpu_id, std::string_view gpu_name,
                                                int gpus) {
  const GpuInterconnect* links = catalog_interconnect(gpu_id);
  if (!links || gpus < 1) return std::nullopt;
  SystemSpec s;
  s.gpu = std::string(gpu_id);
  s.gpus_per_node = gpus;
  const char* wired = "PCIe";
  if (links->nvlink && links->nvlink->form == "bridge") {
    s.topology = Topology::kNvlinkPairs;
    s.gpus_per_node += gpus % 2;  // pairs: an even node
    wired = "NVLink-bridged pairs over PCIe";
  } else if (links->nvlink) {
    s.topology = Topology::kNvswitch;
    wired = "NVLink on an NVSwitch baseboard";
  } else if (links->infinity_fabric) {
    s.topology = Topology::kInfinityFabricMesh;
    wired = "an Infinity Fabric mesh";
  } else if (!links->pcie) {
    return std::nullopt;
  } else if (!links->pcie->peer_to_peer) {
    wired =
        "PCIe without peer-to-peer (NCCL through host memory; its all-reduces may be slower "
        "than forecast: docs/comm.md)";
  }
  s.id = s.gpu + std::string(kBuiltNodeInfix) + std::to_string(s.gpus_per_node);
  s.name = std::to_string(s.gpus_per_node) + "x " + std::string(gpu_name) + ", " + wired +
           "; built from its catalog links (no catalog system)";
  default_from_catalog(s, links, "gpu_catalog/" + s.gpu + ".json");
  s.source = "gpu_catalog/" + s.gpu + ".json, interconnect";
  return s;
}

namespace {

// The node a built node's id names ("rtx-4090-node-4": a catalog GPU by id, name or alias, then
// 1 to kMaxBuiltNodeGpus); nullopt when the name is not such an id.
std::optional<SystemSpec> built_node_named(std::string_view name) {
  const std::size_t at = name.rfind(kBuiltNodeInfix);
  if (at == std::string_view::npos || at == 0) return std::nullopt;
  const std::string_view count = name.substr(at + kBuiltNodeInfix.size());
  // N as the id writes it: digits, no leading zero (one spelling per node)
  if (count.empty() || count.size() > 3 || count[0] == '0' ||
      !std::all_of(count.begin(), count.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  const GpuSpec* gpu = lookup_gpu(name.substr(0, at));
  const int n = std::stoi(std::string(count));
  if (!gpu || n > kMaxBuiltNodeGpus) return std::nullopt;
  std::optional<SystemSpec> node = node_of_catalog_links(gpu->id, gpu->name, n);
  // one node, one name: a node its links build larger (NVLink-bridged pairs: the next even
  // count) is named by its own count
  if (node && node->gpus_per_node != n)
    throw Error("unknown system '" + std::string(name) + "': the node built for " +
                std::to_string(n) + " of its GPUs is '" + node->id + "' (" + node->name + ")");
  return node;
}

}  // namespace

SystemSpec system_named(std::string_view name) {
  if (const SystemSpec* s = lookup_system(name)) return *s;
  if (std::optional<SystemSpec> node = built_node_named(name)) return *node;
  return find_system(name);  // (throws: no catalog system has the name)
}

std::string system_spec_to_json(const SystemSpec& s) {
  nlohmann::json j = {{"id", s.id},
                      {"name", s.name},
                      {"aliases", s.aliases},
                      {"gpu", s.gpu},
                      {"gpus_per_node", s.gpus_per_node},
                      {"topology", std::string(topology_name(s.topology))},
                      {"max_nodes", s.max_nodes},
                      {"source", s.source}};
  nlohmann::json in = nlohmann::json::object();
  if (s.link_bw_gbps_per_direction > 0)
    in["link_bw_gbps_per_direction"] = s.link_bw_gbps_per_direction;
  if (s.pcie_bw_gbps_per_direction > 0)
    in["pcie_bw_gbps_per_direction"] = s.pcie_bw_gbps_per_direction;
  if (s.links_per_gpu > 0) in["links_per_gpu"] = s.links_per_gpu;
  if (s.nvlink_sharp) in["nvlink_sharp"] = true;
  j["intra_node"] = in;
  if (s.network)
    j["network"] = {{"kind", s.network->kind},
                    {"nics_per_node", s.network->nics_per_node},
                    {"nic_gbit_per_s", s.network->nic_gbit_per_s}};
  if (!s.notes.empty()) j["notes"] = s.notes;
  return j.dump();
}

}  // namespace tilecast
