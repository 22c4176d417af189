// One collective on one system: the collective's steps and bytes, the topology's slowest hop,
// the calibrated efficiency curve of that hop (docs/comm.md).
#include <algorithm>
#include <string>
#include <vector>

#include "comm/collective.hpp"
#include "comm/path.hpp"
#include "comm/protocol.hpp"
#include "common/format.hpp"
#include "tilecast/error.hpp"

namespace tilecast {
namespace {

// The curve for (link, family); when it was never fitted, the other family of the same link;
// for direct GPU links (NVLink bridge, Infinity Fabric) the nearest NVLink curve; then any.
std::pair<const EfficiencyCurve*, std::string> pick_curve(const CommCalibration& cal,
                                                          LinkClass link, CommFamily family) {
  auto name = [](LinkClass l, CommFamily f) {
    return std::string(link_class_name(l)) + "/" + std::string(comm_family_name(f));
  };
  const CommFamily other = family == CommFamily::kP2p ? CommFamily::kCollective : CommFamily::kP2p;
  std::vector<std::pair<LinkClass, CommFamily>> order{{link, family}, {link, other}};
  if (link == LinkClass::kNvlinkBridge || link == LinkClass::kInfinityFabric ||
      link == LinkClass::kNvswitch)
    for (CommFamily f : {family, other})
      for (LinkClass l : {LinkClass::kNvlinkBridge, LinkClass::kNvswitch}) order.push_back({l, f});
  for (const auto& [l, f] : order) {
    auto it = cal.curves.find({l, f});
    if (it != cal.curves.end()) return {&it->second, name(l, f)};
  }
  const auto& first = *cal.curves.begin();
  return {&first.second, name(first.first.first, first.first.second)};
}

// The catalog systems whose switches reduce, for the error that refuses nvls elsewhere.
std::string nvls_systems() {
  std::string out;
  for (const SystemSpec& s : system_catalog())
    if (s.nvlink_sharp) out += (out.empty() ? "" : ", ") + s.id;
  return out.empty() ? "none in the catalog" : out;
}

}  // namespace

CollectiveForecast forecast_collective(const SystemSpec& system, const CollectiveRequest& request,
                                       const CommCalibration& calibration) {
  const int per_node = request.gpus_per_node > 0 ? request.gpus_per_node
                                                 : std::min(request.gpus, system.gpus_per_node);
  const std::int64_t max_gpus = std::int64_t{system.gpus_per_node} * system.max_nodes;
  if (request.gpus < 2 || request.gpus > max_gpus)
    throw Error("gpus is " + std::to_string(request.gpus) + "; " + system.id + " allows 2 to " +
                std::to_string(max_gpus));
  if (per_node < 1 || per_node > system.gpus_per_node || request.gpus % per_node != 0)
    throw Error("gpus_per_node is " + std::to_string(per_node) + "; allowed: a divisor of gpus " +
                "up to " + std::to_string(system.gpus_per_node));
  if (!(request.bytes > 0) || request.bytes > 1e13)
    throw Error("a collective of " + detail::format_g(request.bytes) +
                " bytes per GPU; allowed: above 0, at most 1e13 (a smaller model, batch or "
                "sequence)");
  const comm::Placement where{request.gpus, request.gpus / per_node, per_node};
  if (where.nodes > 1 && !system.network)
    throw Error(system.id + " has no network in its system file; forecasts span one node (" +
                std::to_string(system.gpus_per_node) + " GPUs)");
  const comm::CollectiveModel& model = comm::collective_model(request.collective);
  if (request.algorithm == CommAlgorithm::kTree && !model.has_tree)
    throw Error("algorithm 'tree' applies to all_reduce only, not " +
                std::string(collective_name(request.collective)));
  // NVLS: the switches' reduction, inside one NVLink domain of a system whose switches do it
  const bool nvls_applies = model.has_nvls && system.nvlink_sharp && where.nodes == 1;
  if (request.algorithm == CommAlgorithm::kNvls && !nvls_applies)
    throw Error(std::string("algorithm 'nvls' (NVLink SHARP) applies to all_reduce inside one node "
                            "of a system whose NVSwitch reduces (intra_node.nvlink_sharp: ") +
                nvls_systems() + "); not " + std::string(collective_name(request.collective)) +
                " on " + std::to_string(where.nodes) + " node(s) of " + system.id);
  const comm::Path path = comm::slowest_hop(system, where, model.family);
  const auto [curve, curve_name] = pick_curve(calibration, path.link, model.family);

  // NCCL's hierarchical latency: the steps inside a node at the node fabric's curve
  const bool hierarchical = request.hierarchical && where.nodes > 1;
  const EfficiencyCurve* intra_curve = curve;
  if (hierarchical) {
    const comm::Placement node{where.gpus_per_node, 1, where.gpus_per_node};
    intra_curve =
        pick_curve(calibration, comm::slowest_hop(system, node, model.family).link, model.family)
            .first;
  }
  // the node's own fabric, for the low-latency protocols' hops inside a node
  const LinkClass intra_link =
      where.nodes > 1
          ? comm::slowest_hop(system, {where.gpus_per_node, 1, where.gpus_per_node}, model.family)
                .link
          : path.link;
  auto evaluate = [&, curve = curve](CommAlgorithm algorithm) {
    comm::CollectiveCost cost = model.cost(algorithm, where);
    double intra_latency_ms = 0;
    if (hierarchical) {
      const comm::HierarchicalSteps h =
          comm::hierarchical_steps(request.collective, algorithm, where);
      intra_latency_ms = h.intra * intra_curve->alpha_us * 1e-3;
      cost.steps = h.inter;  // the network's steps; f.steps below counts both
    }
    CollectiveForecast f;
    f.algorithm = algorithm;
    f.steps = cost.steps;
    f.bytes_factor = cost.bytes_factor;
    f.link = path.link;
    f.path_bw_gbps = path.bw_gbps * cost.bw_scale;
    if (hierarchical) f.steps = model.cost(algorithm, where).steps;
    if (algorithm == CommAlgorithm::kNvls) {  // comm/protocol.hpp, nvls_latency_ms
      f.latency_ms = comm::nvls_latency_ms(curve->launch_us);
      f.efficiency = curve->e_max;
      f.transfer_ms =
          request.bytes * cost.bytes_factor / (f.path_bw_gbps * 1e9 * curve->e_max) * 1e3;
    } else {
      f.efficiency = comm::efficiency_at(*curve, request.bytes);
      f.latency_ms = comm::latency_ms(cost, *curve) + intra_latency_ms;
      f.transfer_ms = comm::transfer_ms(cost, path.bw_gbps, *curve, request.bytes);
    }
    f.time_ms = f.latency_ms + f.transfer_ms;
    // nccl-tests' bus bandwidth: the ring's bytes factor, whichever algorithm ran
    const double bus_factor = algorithm == CommAlgorithm::kNvls
                                  ? model.cost(CommAlgorithm::kRing, where).bytes_factor
                                  : cost.bytes_factor;
    f.bus_bw_gbps = request.bytes * bus_factor / (f.time_ms * 1e-3) / 1e9;
    f.nodes = where.nodes;
    f.gpus_per_node = where.gpus_per_node;
    // LL and LL128 on one node where the calibration has their launch cost: NCCL runs the
    // fastest. Across nodes Simple only: the network curve is fitted to Vidur's two-node rows,
    // far below line rate (docs/comm.md), and NCCL's protocol choice there is not checked.
    // (NVLS runs Simple only.)
    if (curve->launch_us >= 0 && where.nodes == 1 && algorithm != CommAlgorithm::kNvls &&
        comm::has_low_latency_protocols(request.collective)) {
      comm::LowLatencyShape shape;
      shape.kind = request.collective;
      shape.algorithm = algorithm;
      shape.where = where;
      shape.intra_link = intra_link;
      shape.cost = model.cost(algorithm, where);
      shape.path_bw_gbps = path.bw_gbps;
      shape.e_max = curve->e_max;
      for (CommProtocol p : {CommProtocol::kLl, CommProtocol::kLl128}) {
        const double t = curve->launch_us * 1e-3 + comm::low_latency_ms(p, shape, request.bytes);
        if (!(t < f.time_ms)) continue;
        const double latency = curve->launch_us * 1e-3 + comm::low_latency_ms(p, shape, 0);
        f.protocol = p;
        f.latency_ms = latency;
        f.transfer_ms = t - latency;
        f.time_ms = t;
        f.efficiency = f.transfer_ms > 0
                           ? request.bytes * cost.bytes_factor / (f.transfer_ms * 1e-3) /
                                 (path.bw_gbps * cost.bw_scale * 1e9)
                           : 0;
        f.bus_bw_gbps = request.bytes * cost.bytes_factor / (f.time_ms * 1e-3) / 1e9;
      }
    }
    return f;
  };
  CollectiveForecast out;
  if (request.algorithm != CommAlgorithm::kAuto) {
    out = evaluate(request.algorithm);
  } else {
    out = evaluate(CommAlgorithm::kRing);
    // NCCL runs trees only across nodes; there it takes whichever is faster.
    if (model.has_tree && where.nodes > 1) {
      const CollectiveForecast tree = evaluate(CommAlgorithm::kTree);
      if (tree.time_ms < out.time_ms) out = tree;
    }
    // NCCL takes NVLS where the switches reduce, unless a ring's low-latency protocols are faster
    if (nvls_applies) {
      const CollectiveForecast nvls = evaluate(CommAlgorithm::kNvls);
      if (nvls.time_ms < out.time_ms) out = nvls;
    }
  }
  if (!model.has_tree && request.algorithm == CommAlgorithm::kAuto)
    out.algorithm = CommAlgorithm::kRing;
  out.calibration = curve_name;
  out.calibrated = curve_name == std::string(link_class_name(path.link)) + "/" +
                                     std::string(comm_family_name(model.family));
  return out;
}

}  // namespace tilecast
