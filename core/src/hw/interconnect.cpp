// The "interconnect" object of gpu_catalog files (fields in gpu_catalog/README.md).
#include "tilecast/interconnect.hpp"

#include <map>
#include <nlohmann/json.hpp>

#include "common/embedded_data.hpp"
#include "common/json_fields.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"

namespace tilecast {
namespace {

using detail::integer_field;
using detail::number_field;

const nlohmann::json& object_at(const nlohmann::json& obj, const std::string& field,
                                const std::string& origin) {
  const auto& v = obj.at(field);
  if (!v.is_object()) throw Error(origin + ": field '" + field + "' must be an object");
  return v;
}

NvlinkSpec parse_nvlink(const nlohmann::json& j, const std::string& origin) {
  NvlinkSpec n;
  n.generation = static_cast<int>(integer_field(j, "generation", origin, 1, 10));
  n.links = static_cast<int>(integer_field(j, "links", origin, 1, 64));
  n.bw_gbps_per_direction = number_field(j, "bw_gbps_per_direction", origin, 1, 1e5);
  n.form = detail::choice_field(j, "form", origin, {"bridge", "baseboard"});
  return n;
}

PcieSpec parse_pcie(const nlohmann::json& j, const std::string& origin) {
  PcieSpec p;
  p.generation = static_cast<int>(integer_field(j, "generation", origin, 1, 7));
  p.lanes = static_cast<int>(integer_field(j, "lanes", origin, 1, 32));
  p.bw_gbps_per_direction = number_field(j, "bw_gbps_per_direction", origin, 0.1, 1e4);
  p.peer_to_peer = detail::bool_field(j, "peer_to_peer", origin, true);
  return p;
}

InfinityFabricSpec parse_infinity_fabric(const nlohmann::json& j, const std::string& origin) {
  InfinityFabricSpec f;
  f.links = static_cast<int>(integer_field(j, "links", origin, 1, 64));
  f.bw_gbps_per_direction_per_link =
      number_field(j, "bw_gbps_per_direction_per_link", origin, 1, 1e4);
  return f;
}

}  // namespace

GpuInterconnect parse_gpu_interconnect(std::string_view gpu_json, std::string_view origin) {
  const std::string where(origin);
  const nlohmann::json j = detail::parse_json(gpu_json, origin);
  GpuInterconnect out;
  if (!detail::has_field(j, "interconnect")) return out;
  const auto& ic = object_at(j, "interconnect", where);
  detail::check_known_fields(ic, where + ": interconnect",
                             {"nvlink", "pcie", "infinity_fabric", "nvlink_c2c"});
  if (detail::has_field(ic, "nvlink"))
    out.nvlink = parse_nvlink(object_at(ic, "nvlink", where + " interconnect"),
                              where + ": interconnect.nvlink");
  if (detail::has_field(ic, "pcie"))
    out.pcie =
        parse_pcie(object_at(ic, "pcie", where + " interconnect"), where + ": interconnect.pcie");
  if (detail::has_field(ic, "infinity_fabric"))
    out.infinity_fabric =
        parse_infinity_fabric(object_at(ic, "infinity_fabric", where + " interconnect"),
                              where + ": interconnect.infinity_fabric");
  if (detail::has_field(ic, "nvlink_c2c"))
    out.nvlink_c2c_bw_gbps_per_direction =
        number_field(object_at(ic, "nvlink_c2c", where + " interconnect"), "bw_gbps_per_direction",
                     where + ": interconnect.nvlink_c2c", 1, 1e5);
  out.source = detail::string_field(j, "interconnect_source", origin);
  return out;
}

const GpuInterconnect* catalog_interconnect(std::string_view gpu_name) {
  static const std::map<std::string, GpuInterconnect> by_id = [] {
    std::map<std::string, GpuInterconnect> m;
    for (const auto& f : embedded::json_files_in("gpu_catalog"))
      m.emplace(std::string(f.stem), parse_gpu_interconnect(f.text, f.path));
    return m;
  }();
  const GpuSpec* gpu = lookup_gpu(gpu_name);
  if (!gpu) return nullptr;
  auto it = by_id.find(gpu->id);
  return it == by_id.end() ? nullptr : &it->second;
}

std::string gpu_interconnect_to_json(const GpuInterconnect& links) {
  nlohmann::json j = nlohmann::json::object();
  if (links.nvlink)
    j["nvlink"] = {{"generation", links.nvlink->generation},
                   {"links", links.nvlink->links},
                   {"bw_gbps_per_direction", links.nvlink->bw_gbps_per_direction},
                   {"form", links.nvlink->form}};
  if (links.pcie) {
    j["pcie"] = {{"generation", links.pcie->generation},
                 {"lanes", links.pcie->lanes},
                 {"bw_gbps_per_direction", links.pcie->bw_gbps_per_direction}};
    if (!links.pcie->peer_to_peer) j["pcie"]["peer_to_peer"] = false;
  }
  if (links.infinity_fabric)
    j["infinity_fabric"] = {
        {"links", links.infinity_fabric->links},
        {"bw_gbps_per_direction_per_link", links.infinity_fabric->bw_gbps_per_direction_per_link}};
  if (links.nvlink_c2c_bw_gbps_per_direction > 0)
    j["nvlink_c2c"] = {{"bw_gbps_per_direction", links.nvlink_c2c_bw_gbps_per_direction}};
  j["source"] = links.source;
  return j.dump();
}

}  // namespace tilecast
