// NCCL's LL and LL128 protocols from its tuning model's table (core/data/comm_protocols.json).
#include "comm/protocol.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "common/embedded_data.hpp"
#include "tilecast/error.hpp"

namespace tilecast::comm {
namespace {

// [algorithm ring 0 / tree 1][protocol ll 0 / ll128 1]; hops per hardware class nvlink 0,
// pcie 1, network 2.
struct ProtocolTable {
  double base_us[2][2] = {};
  double hop_us[3][2][2] = {};
  double ll_all_reduce = 0, ll_other = 0, ll128 = 0, ll_intra_across_nodes = 1;
  double nvls_us = 0;  // NVLS (Simple) inside a node
};

const ProtocolTable& table() {
  static const ProtocolTable t = [] {
    constexpr const char* kPath = "core/data/comm_protocols.json";
    const std::string_view text = embedded::find(kPath);
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (text.empty() || j.is_discarded() || !j.is_object())
      throw Error(std::string(kPath) + " is missing or not valid JSON");
    auto num = [&](const nlohmann::json& o, const char* key) {
      if (!o.is_object() || !o.contains(key) || !o[key].is_number() || !(o[key].get<double>() > 0))
        throw Error(std::string(kPath) + ": field '" + key + "' must be a positive number");
      return o[key].get<double>();
    };
    auto obj = [&](const nlohmann::json& o, const char* key) -> const nlohmann::json& {
      if (!o.is_object() || !o.contains(key) || !o[key].is_object())
        throw Error(std::string(kPath) + ": field '" + key + "' must be an object");
      return o[key];
    };
    ProtocolTable p;
    const char* algorithms[2] = {"ring", "tree"};
    const char* protocols[2] = {"ll", "ll128"};
    const char* hardware[3] = {"nvlink", "pcie", "network"};
    for (int a = 0; a < 2; ++a)
      for (int q = 0; q < 2; ++q) {
        p.base_us[a][q] = num(obj(obj(j, "base_us"), algorithms[a]), protocols[q]);
        for (int h = 0; h < 3; ++h)
          p.hop_us[h][a][q] =
              num(obj(obj(obj(j, "hop_us"), hardware[h]), algorithms[a]), protocols[q]);
      }
    const nlohmann::json& f = obj(j, "bandwidth_fraction");
    p.ll_all_reduce = num(f, "ll_all_reduce");
    p.ll_other = num(f, "ll_other");
    p.ll128 = num(f, "ll128");
    p.ll_intra_across_nodes = num(j, "ll_intra_hop_factor_across_nodes");
    p.nvls_us = num(j, "nvls_us");
    return p;
  }();
  return t;
}

int hardware_of(LinkClass link) {
  switch (link) {
    case LinkClass::kPcie: return 1;
    case LinkClass::kNetwork: return 2;
    default: return 0;  // NVSwitch, NVLink bridge, Infinity Fabric: direct GPU links
  }
}

}  // namespace

bool has_low_latency_protocols(Collective kind) {
  return kind == Collective::kAllReduce || kind == Collective::kReduceScatter ||
         kind == Collective::kAllGather;
}

double low_latency_ms(CommProtocol protocol, const LowLatencyShape& s, double bytes) {
  if (protocol == CommProtocol::kSimple || !has_low_latency_protocols(s.kind)) return 1e300;
  const ProtocolTable& t = table();
  const int a = s.algorithm == CommAlgorithm::kTree ? 1 : 0;
  const int q = protocol == CommProtocol::kLl ? 0 : 1;
  const HierarchicalSteps steps = hierarchical_steps(s.kind, s.algorithm, s.where);
  double intra_hop = t.hop_us[hardware_of(s.intra_link)][a][q];
  if (s.where.nodes > 1 && protocol == CommProtocol::kLl) intra_hop *= t.ll_intra_across_nodes;
  const double latency_us =
      t.base_us[a][q] + steps.intra * intra_hop + steps.inter * t.hop_us[2][a][q];
  const double fraction = protocol == CommProtocol::kLl128   ? t.ll128
                          : s.kind == Collective::kAllReduce ? t.ll_all_reduce
                                                             : t.ll_other;
  const double bw = s.path_bw_gbps * s.cost.bw_scale * s.e_max * fraction * 1e9;
  return latency_us * 1e-3 + bytes * s.cost.bytes_factor / bw * 1e3;
}

double nvls_latency_ms(double launch_us) {
  return (std::max(0.0, launch_us) + table().nvls_us) * 1e-3;
}

}  // namespace tilecast::comm
