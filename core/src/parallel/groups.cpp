// Process groups on the system, in Megatron's rank order (tp innermost, then dp, then pp):
// a tensor-parallel group fills a node first, a data-parallel group strides over tp ranks, a
// pipeline hop strides over tp x dp ranks. Each collective goes through the comm model
// (core/src/comm) with the GPUs of the group that share a node.
#include <algorithm>

#include "common/format.hpp"
#include "parallel/parallel.hpp"

namespace tilecast::detail {

Collectives::Collectives(const SystemSpec& system, const ParallelConfig& c,
                         const CommCalibration* calibration)
    : system_(system), c_(c), calibration_(calibration) {}

int Collectives::size(Group g) const {
  switch (g) {
    case Group::tp: return c_.tp;
    case Group::dp: return c_.dp;
    case Group::pp: return c_.pp > 1 ? 2 : 1;  // a send/recv between neighbouring stages
  }
  return 1;
}

CollectiveRequest Collectives::request(Collective what, Group g, double bytes) const {
  const int node = std::max(1, system_.gpus_per_node);
  CollectiveRequest r;
  r.collective = what;
  r.bytes = bytes;
  r.gpus = size(g);
  switch (g) {
    case Group::tp: r.gpus_per_node = std::min(c_.tp, node); break;
    case Group::dp: r.gpus_per_node = std::min(c_.dp, std::max(1, node / c_.tp)); break;
    case Group::pp: r.gpus_per_node = c_.tp * c_.dp < node ? 2 : 1; break;
  }
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
  s += g == Group::tp ? " (tp" : g == Group::dp ? " (dp" : " (pp";
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
