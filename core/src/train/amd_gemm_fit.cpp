// The fit behind tilecast/amd_gemm_train.hpp: Nelder-Mead on log parameters minimising the mean
// |log(forecast / measured)|, from a fixed grid of starts, the best kept.
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "kernel/family.hpp"
#include "kernel/library_profile.hpp"
#include "learned/amd_gemm.hpp"
#include "learned/tile_table.hpp"
#include "tilecast/amd_gemm_train.hpp"
#include "tilecast/error.hpp"

namespace tilecast {
namespace {

constexpr int kParams = 5;
constexpr int kIterations = 1500;  // per Nelder-Mead run; each start runs twice
using Vec = std::array<double, kParams>;

struct Row {
  AmdGemmTerms terms;
  double latency_ms = 0;
};

AmdGemmParams params_of(const Vec& logp) {
  AmdGemmParams p;
  p.compute_scale = std::exp(logp[0]);
  p.tile_bandwidth_scale = std::exp(logp[1]);
  p.tile_kcycles = std::exp(logp[2]);
  p.bandwidth_scale = std::exp(logp[3]);
  p.overhead_ms = std::exp(logp[4]);
  return p;
}

double mape(const AmdGemmParams& p, const std::vector<Row>& rows) {
  double sum = 0;
  for (const Row& r : rows) sum += std::fabs(p.latency_ms(r.terms) - r.latency_ms) / r.latency_ms;
  return sum / double(rows.size());
}

// The objective: mean |log(forecast / measured)|. Unlike MAPE it has one basin on these rows
// (MAPE has two for bmm, far apart in parameters).
double log_error(const AmdGemmParams& p, const std::vector<Row>& rows) {
  double sum = 0;
  for (const Row& r : rows) sum += std::fabs(std::log(p.latency_ms(r.terms) / r.latency_ms));
  return sum / double(rows.size());
}

// Plain Nelder-Mead (reflection 1, expansion 2, contraction and shrink 1/2), fixed iterations.
Vec nelder_mead(const std::vector<Row>& rows, const Vec& start, double step) {
  auto f = [&](const Vec& v) { return log_error(params_of(v), rows); };
  std::array<Vec, kParams + 1> pts;
  std::array<double, kParams + 1> val;
  for (int i = 0; i <= kParams; ++i) {
    pts[std::size_t(i)] = start;
    if (i > 0) pts[std::size_t(i)][std::size_t(i - 1)] += step;
    val[std::size_t(i)] = f(pts[std::size_t(i)]);
  }
  for (int it = 0; it < kIterations; ++it) {
    std::array<int, kParams + 1> order;
    for (int i = 0; i <= kParams; ++i) order[std::size_t(i)] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return val[std::size_t(a)] < val[std::size_t(b)]; });
    std::array<Vec, kParams + 1> p2;
    std::array<double, kParams + 1> v2;
    for (int i = 0; i <= kParams; ++i) {
      p2[std::size_t(i)] = pts[std::size_t(order[std::size_t(i)])];
      v2[std::size_t(i)] = val[std::size_t(order[std::size_t(i)])];
    }
    pts = p2;
    val = v2;
    Vec c{};
    for (int i = 0; i < kParams; ++i)
      for (int j = 0; j < kParams; ++j)
        c[std::size_t(j)] += pts[std::size_t(i)][std::size_t(j)] / kParams;
    auto along = [&](double t) {
      Vec v;
      for (int j = 0; j < kParams; ++j)
        v[std::size_t(j)] =
            c[std::size_t(j)] + t * (pts[kParams][std::size_t(j)] - c[std::size_t(j)]);
      return v;
    };
    const Vec xr = along(-1.0);
    const double fr = f(xr);
    if (fr < val[0]) {
      const Vec xe = along(-2.0);
      const double fe = f(xe);
      pts[kParams] = fe < fr ? xe : xr;
      val[kParams] = std::min(fe, fr);
    } else if (fr < val[kParams - 1]) {
      pts[kParams] = xr;
      val[kParams] = fr;
    } else {
      const Vec xc = along(0.5);
      const double fc = f(xc);
      if (fc < val[kParams]) {
        pts[kParams] = xc;
        val[kParams] = fc;
      } else {
        for (int i = 1; i <= kParams; ++i) {
          for (int j = 0; j < kParams; ++j)
            pts[std::size_t(i)][std::size_t(j)] =
                pts[0][std::size_t(j)] +
                0.5 * (pts[std::size_t(i)][std::size_t(j)] - pts[0][std::size_t(j)]);
          val[std::size_t(i)] = f(pts[std::size_t(i)]);
        }
      }
    }
  }
  return pts[std::size_t(std::min_element(val.begin(), val.end()) - val.begin())];
}

// The best of 16 fixed starts (each parameter's log at two values, the overhead at 10 us), each
// run refined once more from its end (a restart with a smaller simplex).
AmdGemmParams fit(const std::vector<Row>& rows) {
  Vec best{};
  double best_v = 0;
  bool first = true;
  for (double a : {0.0, 0.5})
    for (double b : {-1.0, 0.5})
      for (double c : {-1.0, 1.0})
        for (double d : {-1.0, 0.0}) {
          const Vec start = {a, b, c, d, std::log(0.01)};
          const Vec v = nelder_mead(rows, nelder_mead(rows, start, 0.3), 0.2);
          const double e = log_error(params_of(v), rows);
          if (first || e < best_v) {
            best = v;
            best_v = e;
            first = false;
          }
        }
  return params_of(best);
}

}  // namespace

AmdGemmTrainResult train_amd_gemm_model(const std::vector<MeasuredKernel>& rows,
                                        const std::map<std::string, GpuSpec>& devices,
                                        std::string_view tile_table_json,
                                        const std::vector<std::string>& held_out,
                                        const std::string& command) {
  const TileTable table = parse_tile_table(tile_table_json, "train-amd-gemm --tile-table");
  const std::set<std::string> skip(held_out.begin(), held_out.end());
  std::array<std::vector<Row>, 2> data;
  std::set<std::string> trained_on;
  AmdGemmTrainResult res;
  for (const MeasuredKernel& r : rows) {
    if (r.kernel.op != Op::linear && r.kernel.op != Op::bmm) continue;
    if (skip.count(r.device)) {
      ++res.rows_held_out;
      continue;
    }
    const auto d = devices.find(r.device);
    if (d == devices.end())
      throw Error(r.origin + ": Device '" + r.device + "' has no device file");
    if (!(r.latency_ms > 0)) throw Error(r.origin + ": Latency must be positive");
    const TilePlan plan = plan_kernel(d->second, r.kernel, table, library_profile_for(d->second));
    data[r.kernel.op == Op::bmm ? 1 : 0].push_back(
        {amd_gemm_terms(d->second, r.kernel, plan), r.latency_ms});
    trained_on.insert(r.device);
  }
  nlohmann::ordered_json j;
  j["format"] = kAmdGemmFormat;
  j["command"] = command;
  j["config"] = "amd_gemm fit=nelder_mead_log_params objective=mean_abs_log_ratio iterations=" +
                std::to_string(kIterations) + " starts=16 restarts=1 gemm_tile=tile_table";
  j["trained_on"] = std::vector<std::string>(trained_on.begin(), trained_on.end());
  j["held_out"] = held_out;
  j["form"] = kAmdGemmForm;
  const char* names[2] = {"linear", "bmm"};
  for (int o = 0; o < 2; ++o) {
    const std::vector<Row>& d = data[std::size_t(o)];
    if (d.empty()) throw Error(std::string("train-amd-gemm: no ") + names[o] + " rows to fit");
    const AmdGemmParams p = fit(d);
    res.samples[std::size_t(o)] = std::int64_t(d.size());
    res.train_mape_pct[std::size_t(o)] = 100.0 * mape(p, d);
    nlohmann::ordered_json q;
    q["compute_scale"] = p.compute_scale;
    q["tile_bandwidth_scale"] = p.tile_bandwidth_scale;
    q["tile_kcycles"] = p.tile_kcycles;
    q["bandwidth_scale"] = p.bandwidth_scale;
    q["overhead_ms"] = p.overhead_ms;
    q["samples"] = d.size();
    q["train_mape_pct"] = res.train_mape_pct[std::size_t(o)];
    j["ops"][names[o]] = q;
  }
  res.json = j.dump(2);
  parse_amd_gemm_model(res.json, "train-amd-gemm output");  // what is written reads back
  return res;
}

}  // namespace tilecast
