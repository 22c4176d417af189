// Process groups on the system, in Megatron's rank order (tp innermost, then dp, then pp):
// a tensor-parallel group fills a node first, a data-parallel group strides over tp ranks, a
// pipeline hop strides over tp x dp ranks. Each collective goes through the comm model
// (core/src/comm) with the GPUs of the group that share a node.
#include <algorithm>

#include "common/format.hpp"
#include "parallel/parallel.hpp"

namespace tilecast::detail {

Collectives::Collectives(const SystemSpec& system, const ParallelConfig& c,
                         const CommCalibration* calibration, GroupExtras extras)
    : system_(system), c_(c), calibration_(calibration), x_(extras) {}

int Collectives::size(Group g) const {
  switch (g) {
    case Group::tp: return c_.tp;
    case Group::dp: return c_.dp;
    case Group::pp: return c_.pp > 1 ? 2 : 1;  // a send/recv between neighbouring stages
    case Group::cp: return x_.cp;
    case Group::ep: return x_.ep;
    case Group::dp_cp: return c_.dp * x_.cp;
    case Group::edp: return c_.dp / std::max(1, x_.ep);
  }
  return 1;
}

CollectiveRequest Collectives::request(Collective what, Group g, double bytes) const {
  const int node = std::max(1, system_.gpus_per_node);
  CollectiveRequest r;
  r.collective = what;
  r.bytes = bytes;
  r.gpus = size(g);
  r.hierarchical = x_.hierarchical;
  // GPUs of the group on one node: the group's members stride over the ranks inside it
  const auto per_node = [&](int size, int stride) {
    return std::min(size, std::max(1, node / std::max(1, stride)));
  };
  const int tcp = c_.tp * x_.cp;
  switch (g) {
    case Group::tp: r.gpus_per_node = std::min(c_.tp, node); break;
    case Group::dp: r.gpus_per_node = per_node(c_.dp, tcp); break;
    case Group::pp: r.gpus_per_node = tcp * c_.dp < node ? 2 : 1; break;
    case Group::cp: r.gpus_per_node = per_node(x_.cp, c_.tp); break;
    case Group::ep: r.gpus_per_node = per_node(x_.ep, tcp); break;
    case Group::dp_cp: r.gpus_per_node = per_node(c_.dp * x_.cp, c_.tp); break;
    case Group::edp: r.gpus_per_node = per_node(r.gpus, tcp * x_.ep); break;
  }
  // a group whose size the node does not divide into: the largest divisor that fits
  while (r.gpus_per_node > 1 && r.gpus % r.gpus_per_node != 0) --r.gpus_per_node;
  return r;
}

double Collectives::ms(Collective what, Group g, double bytes) const {
  if (size(g) <= 1 || bytes <= 0) return 0;
  return calibration_ ? forecast_collective(system_, request(what, g, bytes), *calibration_).time_ms
                      : forecast_collective(system_, request(what, g, bytes)).time_ms;
}

std::string Collectives::describe(Collective what, Group g, double bytes) const {
  const CollectiveRequest r = request(what, g, bytes);
  const CollectiveForecast f = calibration_ ? forecast_collective(system_, r, *calibration_)
                                            : forecast_collective(system_, r);
  const auto g4 = [](double v) { return format_g(v, 4); };
  std::string s(collective_name(what));
  static const char* const kNames[] = {" (tp", " (dp",      " (pp", " (cp",
                                       " (ep", " (dp x cp", " (edp"};
  s += kNames[static_cast<int>(g)];
  s += ", " + std::to_string(r.gpus) + " GPUs, " + std::to_string(f.nodes) +
       (f.nodes == 1 ? " node" : " nodes") + "): ";
  s += std::string(comm_algorithm_name(f.algorithm)) + " over " +
       std::string(link_class_name(f.link)) + " at " + g4(f.path_bw_gbps) +
       " GB/s per direction, " + g4(bytes / 1e6) + " MB in " + g4(f.time_ms) + " ms (bus " +
       g4(f.bus_bw_gbps) + " GB/s; curve " + f.calibration + (f.calibrated ? "" : ", borrowed") +
       ")";
  return s;
}

}  // namespace tilecast::detail
