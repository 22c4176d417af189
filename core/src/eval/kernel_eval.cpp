// MAPE of a predictor and of the roofline over measured kernels, per (GPU, op).
#include "tilecast/kernel_eval.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "tilecast/error.hpp"

namespace tilecast {

namespace {

const GpuSpec& device_of(const MeasuredKernel& r, const std::map<std::string, GpuSpec>& devices) {
  auto it = devices.find(r.device);
  if (it != devices.end()) return it->second;
  std::string known;
  for (const auto& [name, spec] : devices) known += (known.empty() ? "" : ", ") + name;
  throw Error(r.origin + ": Device '" + r.device +
              "' has no device file; known devices: " + (known.empty() ? "none" : known));
}

}  // namespace

std::string eval_rows_csv(const std::vector<MeasuredKernel>& rows,
                          const std::map<std::string, GpuSpec>& devices, Predictor predictor) {
  std::string out = "origin,gpu,op,dims,measured_ms,predicted_ms,roofline_ms,tile,waves\n";
  char buf[160];
  for (const MeasuredKernel& r : rows) {
    const KernelForecast f = forecast_kernel(device_of(r, devices), r.kernel, predictor, r.launch);
    std::snprintf(buf, sizeof buf, ",%.17g,%.17g,%.17g,", r.latency_ms, f.latency_ms,
                  f.roofline_ms);
    out += "\"" + r.origin + "\"," + r.device + "," + std::string(op_name(r.kernel.op)) + ",\"" +
           dims_to_string(r.kernel) + "\"" + buf + f.tile + "," + std::to_string(f.waves) + "\n";
  }
  return out;
}

EvalReport evaluate_kernels(const std::vector<MeasuredKernel>& rows,
                            const std::map<std::string, GpuSpec>& devices, Predictor predictor) {
  struct Sum {
    std::int64_t n = 0;
    double ours = 0, roof = 0;
  };
  std::map<std::pair<std::string, int>, Sum> sums;
  Sum all;
  EvalReport rep;
  double width = 0;
  for (const MeasuredKernel& r : rows) {
    const KernelForecast f = forecast_kernel(device_of(r, devices), r.kernel, predictor, r.launch);
    if (f.band_high_ms > 0) {
      rep.banded += 1;
      rep.inside_band += f.band_low_ms <= r.latency_ms && r.latency_ms <= f.band_high_ms;
      width += (f.band_high_ms - f.band_low_ms) / f.latency_ms;
    }
    const double ours = std::fabs(f.latency_ms - r.latency_ms) / r.latency_ms;
    const double roof = std::fabs(f.roofline_ms - r.latency_ms) / r.latency_ms;
    Sum& s = sums[{r.device, int(r.kernel.op)}];
    for (Sum* t : {&s, &all}) {
      t->n += 1;
      t->ours += ours;
      t->roof += roof;
    }
  }
  if (rep.banded > 0) rep.mean_band_width_pct = 100.0 * width / double(rep.banded);
  for (const auto& [key, s] : sums) {
    EvalGroup g;
    g.gpu = key.first;
    g.op = std::string(op_name(static_cast<Op>(key.second)));
    g.n = s.n;
    g.mape_pct = 100.0 * s.ours / double(s.n);
    g.roofline_mape_pct = 100.0 * s.roof / double(s.n);
    rep.groups.push_back(g);
  }
  rep.n = all.n;
  if (all.n > 0) {
    rep.overall_mape_pct = 100.0 * all.ours / double(all.n);
    rep.overall_roofline_mape_pct = 100.0 * all.roof / double(all.n);
  }
  return rep;
}

std::string eval_report_to_json(const EvalReport& rep) {
  nlohmann::ordered_json j;
  j["groups"] = nlohmann::ordered_json::array();
  for (const EvalGroup& g : rep.groups) {
    nlohmann::ordered_json e;
    e["gpu"] = g.gpu;
    e["op"] = g.op;
    e["n"] = g.n;
    e["mape_pct"] = g.mape_pct;
    e["roofline_mape_pct"] = g.roofline_mape_pct;
    j["groups"].push_back(e);
  }
  j["overall_mape_pct"] = rep.overall_mape_pct;
  if (rep.banded > 0)
    j["band"] = {{"n", rep.banded},
                 {"inside_pct", 100.0 * double(rep.inside_band) / double(rep.banded)},
                 {"mean_width_pct", rep.mean_band_width_pct}};
  else
    j["band"] = nullptr;
  return j.dump();
}

std::string eval_report_to_text(const EvalReport& rep, Predictor predictor) {
  std::string out;
  char buf[256];
  std::snprintf(buf, sizeof buf, "%-26s %-8s %7s %10s %10s\n", "gpu", "op", "n",
                std::string(predictor_name(predictor)).c_str(), "roofline");
  out += buf;
  for (const EvalGroup& g : rep.groups) {
    std::snprintf(buf, sizeof buf, "%-26s %-8s %7lld %9.2f%% %9.2f%%\n", g.gpu.c_str(),
                  g.op.c_str(), static_cast<long long>(g.n), g.mape_pct, g.roofline_mape_pct);
    out += buf;
  }
  std::snprintf(buf, sizeof buf, "%-26s %-8s %7lld %9.2f%% %9.2f%%\n", "overall", "",
                static_cast<long long>(rep.n), rep.overall_mape_pct, rep.overall_roofline_mape_pct);
  out += buf;
  if (rep.banded > 0) {
    std::snprintf(buf, sizeof buf, "80%% band: %lld of %lld inside (%.1f%%), mean width %.1f%%\n",
                  static_cast<long long>(rep.inside_band), static_cast<long long>(rep.banded),
                  100.0 * double(rep.inside_band) / double(rep.banded), rep.mean_band_width_pct);
    out += buf;
  }
  return out;
}

}  // namespace tilecast
