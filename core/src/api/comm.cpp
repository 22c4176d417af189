// JSON API for communication forecasts: the system catalog, system validation, collectives.
#include "tilecast/comm.hpp"

#include <nlohmann/json.hpp>

#include "api/request.hpp"
#include "common/json_fields.hpp"
#include "forecast/work_budget.hpp"
#include "tilecast/api.hpp"
#include "tilecast/error.hpp"
#include "tilecast/interconnect.hpp"
#include "tilecast/system.hpp"

namespace tilecast::api {
namespace {

constexpr const char* kCommOrigin = "collective request";

SystemSpec required_system(const nlohmann::json& req) {
  if (auto s = detail::request_system(req, kCommOrigin)) return *s;
  throw Error(std::string(kCommOrigin) + ": field 'system' is missing");
}

}  // namespace

std::string list_systems() {
  nlohmann::json list = nlohmann::json::array();
  // Text is read as a string_view throughout the core: one instantiation of the JSON parser.
  for (const auto& s : system_catalog()) {
    nlohmann::json j = nlohmann::json::parse(std::string_view(system_spec_to_json(s)));
    if (const GpuInterconnect* links = catalog_interconnect(s.gpu))
      j["gpu_interconnect"] =
          nlohmann::json::parse(std::string_view(gpu_interconnect_to_json(*links)));
    list.push_back(j);
  }
  return list.dump();
}

std::string validate_system(std::string_view system_json) {
  return system_spec_to_json(parse_system_spec(system_json, "custom system"));
}

std::string forecast_collective(std::string_view request_json) {
  const nlohmann::json req = detail::parse_json(request_json, kCommOrigin);
  const SystemSpec system = required_system(req);
  CollectiveRequest q;
  q.collective = parse_collective(detail::string_field(req, "collective", kCommOrigin));
  const std::string algorithm = detail::string_field(req, "algorithm", kCommOrigin, false);
  if (!algorithm.empty()) q.algorithm = parse_comm_algorithm(algorithm);
  q.bytes = detail::number_field(req, "bytes", kCommOrigin, 1, 1e13);
  q.gpus = static_cast<int>(detail::integer_field(req, "gpus", kCommOrigin, 2, 1 << 20));
  if (detail::has_field(req, "gpus_per_node"))
    q.gpus_per_node =
        static_cast<int>(detail::integer_field(req, "gpus_per_node", kCommOrigin, 1, 1024));
  // closed forms: one step of work, estimated like every request's (forecast/work_budget.hpp)
  detail::require_within_budget(1, kCommOrigin, "nothing (a collective is a closed form)");
  const CollectiveForecast f = forecast_collective(system, q);
  nlohmann::ordered_json j;
  j["system"] = system.id;
  j["collective"] = std::string(collective_name(q.collective));
  j["bytes"] = q.bytes;
  j["gpus"] = q.gpus;
  j["nodes"] = f.nodes;
  j["gpus_per_node"] = f.gpus_per_node;
  j["time_ms"] = f.time_ms;
  j["latency_ms"] = f.latency_ms;
  j["transfer_ms"] = f.transfer_ms;
  j["algorithm"] = q.collective == Collective::kSendRecv
                       ? std::string("direct")
                       : std::string(comm_algorithm_name(f.algorithm));
  j["protocol"] = std::string(comm_protocol_name(f.protocol));
  j["steps"] = f.steps;
  j["bytes_factor"] = f.bytes_factor;
  j["link"] = std::string(link_class_name(f.link));
  j["path_bw_gbps"] = f.path_bw_gbps;
  j["efficiency"] = f.efficiency;
  j["bus_bw_gbps"] = f.bus_bw_gbps;
  j["calibration"] = f.calibration;
  j["calibrated"] = f.calibrated;
  return j.dump();
}

}  // namespace tilecast::api
