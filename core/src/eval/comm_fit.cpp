// The calibration fit of the efficiency curves (docs/comm.md): for each (link class, family)
// with rows, least squares on log time over (log alpha, log e_max, log s_half) by Nelder-Mead
// from fixed starts. No randomness: the same rows give the same file.
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "comm/collective.hpp"
#include "comm/path.hpp"
#include "comm/protocol.hpp"
#include "common/median.hpp"
#include "tilecast/comm_eval.hpp"
#include "tilecast/system.hpp"

namespace tilecast {
namespace {

using Params = std::array<double, 3>;  // log alpha_us, log e_max, log s_half_bytes

// A row reduced to what the curve acts on: both algorithms' costs and the path bandwidth.
struct FitRow {
  comm::CollectiveCost ring, tree;
  bool try_tree = false;  // auto picks the faster across nodes, as the forecast does
  double path_bw_gbps = 0, bytes = 0, log_measured = 0;
  comm::LowLatencyShape ring_ll;  // for the launch cost of the low-latency protocols
};

// The largest message whose excess over NCCL's LL latency sets launch_us.
constexpr double kSmallMessageBytes = 64 * 1024;

EfficiencyCurve curve_of(const Params& p) {
  return {std::exp(p[0]), std::exp(p[1]), std::exp(p[2])};
}

double loss(const Params& p, const std::vector<FitRow>& rows) {
  if (p[1] > std::log(2.0) || p[0] < std::log(1e-3) || p[2] > std::log(1e11)) return 1e30;
  const EfficiencyCurve c = curve_of(p);
  double sum = 0;
  for (const auto& r : rows) {
    double t = comm::latency_ms(r.ring, c) + comm::transfer_ms(r.ring, r.path_bw_gbps, c, r.bytes);
    if (r.try_tree)
      t = std::min(
          t, comm::latency_ms(r.tree, c) + comm::transfer_ms(r.tree, r.path_bw_gbps, c, r.bytes));
    const double d = std::log(t) - r.log_measured;
    sum += d * d;
  }
  return sum / static_cast<double>(rows.size());
}

Params nelder_mead(Params x0, const std::vector<FitRow>& rows) {
  std::array<Params, 4> pts{};
  std::array<double, 4> val{};
  pts[0] = x0;
  for (int i = 0; i < 3; ++i) {
    pts[i + 1] = x0;
    pts[i + 1][i] += 0.5;
  }
  for (int i = 0; i < 4; ++i) val[i] = loss(pts[i], rows);
  for (int it = 0; it < 600; ++it) {
    std::array<int, 4> order{0, 1, 2, 3};
    std::sort(order.begin(), order.end(), [&](int a, int b) { return val[a] < val[b]; });
    std::array<Params, 4> p2;
    std::array<double, 4> v2;
    for (int i = 0; i < 4; ++i) p2[i] = pts[order[i]], v2[i] = val[order[i]];
    pts = p2, val = v2;
    if (val[3] - val[0] < 1e-12) break;
    Params c{};
    for (int i = 0; i < 3; ++i)
      for (int d = 0; d < 3; ++d) c[d] += pts[i][d] / 3;
    auto along = [&](double t) {
      Params q;
      for (int d = 0; d < 3; ++d) q[d] = c[d] + t * (pts[3][d] - c[d]);
      return q;
    };
    const Params xr = along(-1);
    const double fr = loss(xr, rows);
    if (fr < val[0]) {
      const Params xe = along(-2);
      const double fe = loss(xe, rows);
      pts[3] = fe < fr ? xe : xr, val[3] = std::min(fe, fr);
    } else if (fr < val[2]) {
      pts[3] = xr, val[3] = fr;
    } else {
      const Params xc = along(0.5);
      const double fc = loss(xc, rows);
      if (fc < val[3]) {
        pts[3] = xc, val[3] = fc;
      } else {
        for (int i = 1; i < 4; ++i) {
          for (int d = 0; d < 3; ++d) pts[i][d] = pts[0][d] + 0.5 * (pts[i][d] - pts[0][d]);
          val[i] = loss(pts[i], rows);
        }
      }
    }
  }
  return pts[std::min_element(val.begin(), val.end()) - val.begin()];
}

bool wanted(const std::vector<std::string>& list, const std::string& v) {
  return list.empty() || std::find(list.begin(), list.end(), v) != list.end();
}

}  // namespace

CommCalibration fit_comm_calibration(const std::vector<CommRow>& rows,
                                     const CommFitOptions& options) {
  std::map<std::pair<LinkClass, CommFamily>, std::vector<FitRow>> by_curve;
  for (const auto& r : rows) {
    if (r.held_out && !options.include_held_out) continue;
    if (!wanted(options.nodes, r.node)) continue;
    if (!options.gpus.empty() &&
        std::find(options.gpus.begin(), options.gpus.end(), r.gpus) == options.gpus.end())
      continue;
    const SystemSpec* system = lookup_system(r.node);
    if (!system) continue;
    const comm::Placement where{r.gpus, r.gpus / r.gpus_per_node, r.gpus_per_node};
    if (where.nodes > 1 && !system->network) continue;
    const comm::CollectiveModel& model = comm::collective_model(r.collective);
    const comm::Path path = comm::slowest_hop(*system, where, model.family);
    FitRow f;
    f.ring = model.cost(CommAlgorithm::kRing, where);
    f.try_tree = model.has_tree && where.nodes > 1;
    if (f.try_tree) f.tree = model.cost(CommAlgorithm::kTree, where);
    f.path_bw_gbps = path.bw_gbps;
    f.bytes = r.bytes;
    f.log_measured = std::log(r.measured_ms);
    f.ring_ll.kind = r.collective;
    f.ring_ll.where = where;
    f.ring_ll.intra_link =
        where.nodes > 1 ? comm::slowest_hop(*system, {where.gpus_per_node, 1, where.gpus_per_node},
                                            model.family)
                              .link
                        : path.link;
    f.ring_ll.cost = f.ring;
    f.ring_ll.path_bw_gbps = path.bw_gbps;
    by_curve[{path.link, model.family}].push_back(f);
  }
  CommCalibration out;
  for (const auto& [key, fit_rows] : by_curve) {
    Params best{};
    double best_loss = 1e300;
    for (double alpha_us : {1.0, 10.0})
      for (double s_half : {1e5, 1e6, 1e7}) {
        const Params p =
            nelder_mead({std::log(alpha_us), std::log(0.7), std::log(s_half)}, fit_rows);
        const double l = loss(p, fit_rows);
        if (l < best_loss) best = p, best_loss = l;
      }
    EfficiencyCurve curve = curve_of(best);
    // launch_us: the median excess of the smallest messages over NCCL's ring LL time
    std::vector<double> excess_us;
    for (const FitRow& r : fit_rows) {
      if (r.bytes > kSmallMessageBytes || !comm::has_low_latency_protocols(r.ring_ll.kind) ||
          r.ring_ll.where.nodes > 1)
        continue;
      comm::LowLatencyShape s = r.ring_ll;
      s.e_max = curve.e_max;
      excess_us.push_back(std::exp(r.log_measured) * 1e3 -
                          comm::low_latency_ms(CommProtocol::kLl, s, r.bytes) * 1e3);
    }
    if (!excess_us.empty()) curve.launch_us = std::max(0.0, detail::median(excess_us));
    out.curves[key] = curve;
  }
  return out;
}

}  // namespace tilecast
