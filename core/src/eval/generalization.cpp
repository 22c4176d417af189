// The generalization protocol's aggregation: per-fold kernel and whole-model error, the 80%
// error bands fitted on out-of-architecture residuals and their coverage, the JSON report and
// its tables in docs/accuracy.md (tilecast/generalization.hpp). No training: runs in, text out.
#include "tilecast/generalization.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "common/json_fields.hpp"
#include "eval/band_fit.hpp"
#include "kernel/family.hpp"
#include "tilecast/error.hpp"

namespace tilecast {
namespace {

using ojson = nlohmann::ordered_json;

// The band settings; kGeneralizationProtocol names them (it is hashed), so a change here
// changes that string too. Size classes of kernel forecasts (ms): launch-bound, small, medium,
// large kernels.
const std::vector<double> kClassEdgesMs = {0.05, 0.5, 5};
// A size class (a mode) gets its own band when it holds this many residuals and some from
// every fold its family (the whole models) has; else the family's (both modes') pooled band.
constexpr std::size_t kMinClassResiduals = 50;
constexpr std::size_t kMinModeResiduals = 5;

// The report's op groups: GEMMs by op, the other families whole.
const std::array<const char*, 5> kGroups = {"bmm", "linear", "elementwise", "softmax", "layernorm"};
const std::array<const char*, 5> kGroupTitles = {"bmm", "linear", "element-wise", "softmax", "ln"};

std::string op_group(Op op) {
  if (op_family(op) == OpFamily::gemm) return std::string(op_name(op));
  return family_of(op).name;
}

double r2(double v) { return std::round(v * 100) / 100; }

struct Stats {
  std::int64_t n = 0;
  double abs_sum = 0, signed_sum = 0, max_abs = 0, roofline_abs_sum = 0;
  void add(double error_pct, double roofline_error_pct) {
    ++n;
    abs_sum += std::fabs(error_pct);
    signed_sum += error_pct;
    max_abs = std::max(max_abs, std::fabs(error_pct));
    roofline_abs_sum += std::fabs(roofline_error_pct);
  }
  double mean_abs() const { return n ? abs_sum / double(n) : 0; }
  double signed_mean() const { return n ? signed_sum / double(n) : 0; }
  double roofline_mean_abs() const { return n ? roofline_abs_sum / double(n) : 0; }
};

double error_pct(double predicted, double measured) {
  return 100 * (predicted - measured) / measured;
}

ojson kernel_groups(const FoldRun& run) {
  std::vector<std::string> gpus = run.fold.gpus;
  if (gpus.size() > 1) gpus.push_back("all");
  ojson out = ojson::array();
  for (const std::string& gpu : gpus)
    for (const char* group : kGroups) {
      Stats s;
      for (const KernelResidual& k : run.kernels)
        if ((gpu == "all" || k.gpu == gpu) && op_group(k.op) == group)
          s.add(error_pct(k.predicted_ms, k.measured_ms), error_pct(k.roofline_ms, k.measured_ms));
      if (s.n == 0) continue;
      out.push_back({{"gpu", gpu},
                     {"group", group},
                     {"n", s.n},
                     {"mape_pct", r2(s.mean_abs())},
                     {"signed_mean_pct", r2(s.signed_mean())},
                     {"roofline_mape_pct", r2(s.roofline_mean_abs())}});
    }
  return out;
}

ojson e2e_groups(const FoldRun& run) {
  ojson out = ojson::array();
  for (const std::string& gpu : run.fold.gpus)
    for (const char* mode : {"inference", "training"}) {
      Stats s, forward, backward;  // the phases: training cases whose label records them
      for (const E2eCase& c : run.e2e) {
        if (c.gpu != gpu || c.mode != mode) continue;
        s.add(c.error_pct, c.roofline_error_pct);
        if (!c.has_phases()) continue;
        forward.add(c.forward_error_pct(), 0);
        backward.add(c.backward_error_pct(), 0);
      }
      if (s.n == 0) continue;
      ojson g = {{"gpu", gpu},
                 {"mode", mode},
                 {"n", s.n},
                 {"mae_pct", r2(s.mean_abs())},
                 {"signed_mean_pct", r2(s.signed_mean())},
                 {"max_abs_pct", r2(s.max_abs)},
                 {"roofline_mae_pct", r2(s.roofline_mean_abs())}};
      // Where a step's bias lies: the forward's and the backward's signed means.
      if (forward.n > 0)
        g["phases"] = {{"n", forward.n},
                       {"forward_signed_mean_pct", r2(forward.signed_mean())},
                       {"backward_signed_mean_pct", r2(backward.signed_mean())}};
      out.push_back(g);
    }
  return out;
}

struct Coverage {
  std::int64_t n = 0, inside = 0;
  double width_sum = 0;  // band width in % of the forecast
  void add(double measured, double predicted, const ErrorBand* b) {
    if (!b) return;
    ++n;
    if (measured >= predicted * b->low && measured <= predicted * b->high) ++inside;
    width_sum += 100 * (b->high - b->low);
  }
  double inside_pct() const { return n ? 100.0 * double(inside) / double(n) : 0; }
  double mean_width_pct() const { return n ? width_sum / double(n) : 0; }
};

ojson band_check(const FoldRun& run, const ErrorBands& bands, const std::string& fitted_on) {
  Coverage k, m;
  for (const KernelResidual& r : run.kernels)
    k.add(r.measured_ms, r.predicted_ms, bands.kernel_band(family_of(r.op).name, r.predicted_ms));
  for (const E2eCase& c : run.e2e)
    m.add(c.measured_ms, c.predicted_ms,
          bands.model_band(c.mode == "training" ? Mode::training : Mode::inference));
  return {{"fitted_on", fitted_on},
          {"kernel_n", k.n},
          {"kernel_inside_pct", r2(k.inside_pct())},
          {"kernel_mean_width_pct", r2(k.mean_width_pct())},
          {"e2e_n", m.n},
          {"e2e_inside_pct", r2(m.inside_pct())},
          {"e2e_mean_width_pct", r2(m.mean_width_pct())}};
}

std::string fixed1(double v, bool sign = false) {
  char buf[32];
  std::snprintf(buf, sizeof buf, sign ? "%+.1f" : "%.1f", v);
  return buf;
}

// Residuals of one band, one vector per fold (architecture), in the runs' order.
using ByFold = std::vector<std::vector<double>>;

std::size_t count(const ByFold& r) {
  std::size_t n = 0;
  for (const auto& f : r) n += f.size();
  return n;
}
std::size_t folds_with_residuals(const ByFold& r) {
  return std::size_t(std::count_if(r.begin(), r.end(), [](const auto& f) { return !f.empty(); }));
}
void pool_into(ByFold& pooled, const ByFold& part) {
  pooled.resize(std::max(pooled.size(), part.size()));
  for (std::size_t i = 0; i < part.size(); ++i)
    pooled[i].insert(pooled[i].end(), part[i].begin(), part[i].end());
}
// Its own band for a part with enough residuals from every fold of the whole; else the whole's.
ErrorBand part_or_pooled(const ByFold& part, const ByFold& pooled, std::size_t min_residuals) {
  const bool own =
      count(part) >= min_residuals && folds_with_residuals(part) == folds_with_residuals(pooled);
  return fit_architecture_band(own ? part : pooled);
}

}  // namespace

ErrorBands fit_error_bands(const std::vector<FoldRun>& runs, std::string_view skip) {
  std::map<std::string, std::vector<ByFold>> by_class;  // family -> class -> fold -> r
  std::map<std::string, ByFold> by_mode;                // mode -> fold -> r
  ErrorBands bands;
  bands.class_edges_ms = kClassEdgesMs;
  std::size_t fold = 0;
  for (const FoldRun& run : runs) {
    if (!run.fold.fits_bands || run.fold.name == skip) continue;
    for (const KernelResidual& k : run.kernels) {
      auto& classes = by_class[family_of(k.op).name];
      classes.resize(kClassEdgesMs.size() + 1);
      auto& folds = classes[std::size_t(bands.size_class(k.predicted_ms))];
      folds.resize(fold + 1);
      folds[fold].push_back(std::log(k.measured_ms / k.predicted_ms));
    }
    for (const E2eCase& c : run.e2e) {
      auto& folds = by_mode[c.mode];
      folds.resize(fold + 1);
      folds[fold].push_back(std::log(c.measured_ms / c.predicted_ms));
    }
    ++fold;
  }
  for (const auto& [family, classes] : by_class) {
    ByFold pooled;
    for (const auto& c : classes) pool_into(pooled, c);
    for (const auto& c : classes)
      bands.kernel[family].push_back(part_or_pooled(c, pooled, kMinClassResiduals));
  }
  ByFold all_modes;
  for (const auto& [mode, r] : by_mode) pool_into(all_modes, r);
  for (const auto& [mode, r] : by_mode)
    bands.model[mode] = part_or_pooled(r, all_modes, kMinModeResiduals);
  return bands;
}

std::string generalization_report_json(const std::vector<FoldRun>& runs, const TrainConfig& config,
                                       const std::string& hash, const std::string& command) {
  ojson j;
  j["format"] = "tilecast-generalization-1";
  j["what"] =
      "Out-of-architecture accuracy: each training architecture's GPUs held out of training "
      "and evaluated (kernel test rows, whole-model labels); Hopper and CDNA GPUs with the "
      "full model. error = (forecast - measured) / measured; signed mean < 0: too fast. "
      "Bands: share of measurements inside the 80% band and its mean width, retrained folds "
      "against bands fitted on the other retrained folds (docs/generalization.md)";
  j["command"] = command;
  j["protocol"] = std::string(kGeneralizationProtocol);
  j["hash"] = hash;
  j["hash_covers"] =
      "per retrained fold the training hash (training CSV names and texts, device files, "
      "trainer config incl. seed and held-out GPUs); evaluation kernel CSVs, device files, "
      "labels and model configs; fold definitions; the embedded kernel_weights.json, "
      "tile_table.json and their AMD counterparts (the full models); the kernel-library profiles "
      "(launch rules, kernel generations); the device specs as parsed (with what they take from "
      "the GPU catalog, e.g. the stated DRAM efficiency); the protocol version. Not the "
      "forecast code.";
  j["trainer"] = train_config_text(config);
  j["folds"] = ojson::array();
  std::int64_t n_fitting = 0;
  for (const FoldRun& run : runs) n_fitting += run.fold.fits_bands ? 1 : 0;
  ErrorBands committed = fit_error_bands(runs);
  committed.protocol_hash = hash;
  for (const FoldRun& run : runs) {
    ojson f;
    f["name"] = run.fold.name;
    f["gpus"] = run.fold.gpus;
    f["model"] =
        run.fold.retrain ? "trained without the fold's GPUs" : "the full model (embedded weights)";
    f["trained_on"] = run.trained_on;
    f["rows_trained"] = run.rows_trained;
    f["rows_held_out"] = run.rows_held_out;
    f["kernels"] = kernel_groups(run);
    f["e2e"] = e2e_groups(run);
    if (run.fold.fits_bands && n_fitting > 1)
      f["bands"] = band_check(run, fit_error_bands(runs, run.fold.name),
                              "the other " + std::to_string(n_fitting - 1) + " retrained folds");
    else
      f["bands"] =
          band_check(run, committed, "all " + std::to_string(n_fitting) + " retrained folds");
    j["folds"].push_back(f);
  }
  j["error_bands"] = nlohmann::ordered_json::parse(error_bands_to_json(committed, command));
  return j.dump(2);
}

std::string fold_runs_to_json(const std::vector<FoldRun>& runs, const std::string& hash) {
  nlohmann::json j;
  j["hash"] = hash;
  j["runs"] = nlohmann::json::array();
  for (const FoldRun& r : runs) {
    nlohmann::json f;
    f["name"] = r.fold.name;
    f["gpus"] = r.fold.gpus;
    f["retrain"] = r.fold.retrain;
    f["fits_bands"] = r.fold.fits_bands;
    f["trained_on"] = r.trained_on;
    f["rows_trained"] = r.rows_trained;
    f["rows_held_out"] = r.rows_held_out;
    f["kernels"] = nlohmann::json::array();
    for (const KernelResidual& k : r.kernels)
      f["kernels"].push_back(
          {k.gpu, std::string(op_name(k.op)), k.measured_ms, k.predicted_ms, k.roofline_ms});
    f["e2e"] = nlohmann::json::array();
    for (const E2eCase& c : r.e2e)
      f["e2e"].push_back({c.gpu, c.model, c.mode, c.seq, c.batch, c.measured_ms, c.predicted_ms,
                          c.roofline_ms, c.measured_forward_ms, c.measured_backward_ms,
                          c.predicted_forward_ms, c.predicted_backward_ms});
    j["runs"].push_back(f);
  }
  return j.dump();
}

std::vector<FoldRun> fold_runs_from_json(std::string_view json_text, std::string_view origin) {
  const nlohmann::json j = detail::parse_json(json_text, origin);
  std::vector<FoldRun> runs;
  try {
    for (const auto& f : j.at("runs")) {
      FoldRun r;
      r.fold = {f.at("name"), f.at("gpus"), f.at("retrain"), f.at("fits_bands")};
      r.trained_on = f.at("trained_on").get<std::vector<std::string>>();
      r.rows_trained = f.at("rows_trained");
      r.rows_held_out = f.at("rows_held_out");
      for (const auto& k : f.at("kernels"))
        r.kernels.push_back({k[0], parse_op(k[1].get<std::string>()), k[2], k[3], k[4]});
      for (const auto& c : f.at("e2e")) {
        E2eCase e;
        e.gpu = c[0];
        e.model = c[1];
        e.mode = c[2];
        e.seq = c[3];
        e.batch = c[4];
        e.measured_ms = c[5];
        e.predicted_ms = c[6];
        e.roofline_ms = c[7];
        if (c.size() >= 12) {  // the phases (0 where the label records none)
          e.measured_forward_ms = c[8];
          e.measured_backward_ms = c[9];
          e.predicted_forward_ms = c[10];
          e.predicted_backward_ms = c[11];
        }
        e.error_pct = error_pct(e.predicted_ms, e.measured_ms);
        e.roofline_error_pct = error_pct(e.roofline_ms, e.measured_ms);
        r.e2e.push_back(e);
      }
      runs.push_back(std::move(r));
    }
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string(origin) + ": not a runs file: " + e.what());
  }
  return runs;
}

std::string fold_runs_hash(std::string_view json_text) {
  return detail::parse_json(json_text, "runs").value("hash", std::string());
}

std::string generalization_markdown(std::string_view report_json) {
  const nlohmann::json j = detail::parse_json(report_json, "generalization report");
  std::string md;
  md += "Command: `" + j.at("command").get<std::string>() +
        "` (writes `docs/generalization.json`"
        " and `core/data/error_bands.json`; protocol `" +
        j.at("protocol").get<std::string>() + "`, " + j.at("hash").get<std::string>() + ").\n\n";
  md += "**Kernels** of each fold's held-out GPUs: MAPE % (signed mean error %; < 0: too fast)\n\n";
  md += "| fold | GPU | n |";
  for (const char* t : kGroupTitles) md += std::string(" ") + t + " |";
  md += "\n|---|---|---|---|---|---|---|---|\n";
  for (const auto& f : j.at("folds")) {
    std::vector<std::string> gpus = f.at("gpus").get<std::vector<std::string>>();
    if (gpus.size() > 1) gpus.push_back("all");
    for (const std::string& gpu : gpus) {
      std::int64_t n = 0;
      std::string cells;
      for (const char* group : kGroups) {
        std::string cell = " |";
        for (const auto& g : f.at("kernels"))
          if (g.at("gpu") == gpu && g.at("group") == group) {
            n += g.at("n").get<std::int64_t>();
            cell = " " + fixed1(g.at("mape_pct").get<double>()) + " (" +
                   fixed1(g.at("signed_mean_pct").get<double>(), true) + ") |";
          }
        cells += cell;
      }
      if (n == 0) continue;
      md += "| " + f.at("name").get<std::string>() + " | " + gpu + " | " + std::to_string(n) +
            " |" + cells + "\n";
    }
  }
  md += "\n**Whole models**: error % of the measured end-to-end latency per GPU and mode\n\n";
  md +=
      "| fold | GPU | mode | n | MAE % | signed mean % | max % | signed mean %: forward / "
      "backward |\n|---|---|---|---|---|---|---|---|\n";
  for (const auto& f : j.at("folds"))
    for (const auto& e : f.at("e2e")) {
      std::string phases = "—";
      if (e.contains("phases")) {
        const auto& ph = e.at("phases");
        phases = fixed1(ph.at("forward_signed_mean_pct").get<double>(), true) + " / " +
                 fixed1(ph.at("backward_signed_mean_pct").get<double>(), true);
        if (ph.at("n") != e.at("n")) phases += " (n " + std::to_string(ph.at("n").get<int>()) + ")";
      }
      md += "| " + f.at("name").get<std::string>() + " | " + e.at("gpu").get<std::string>() +
            " | " + e.at("mode").get<std::string>() + " | " +
            std::to_string(e.at("n").get<std::int64_t>()) + " | " +
            fixed1(e.at("mae_pct").get<double>()) + " | " +
            fixed1(e.at("signed_mean_pct").get<double>(), true) + " | " +
            fixed1(e.at("max_abs_pct").get<double>()) + " | " + phases + " |\n";
    }
  md +=
      "\n**80% bands**: share of the fold's measurements inside the band, and its mean width "
      "in % of the forecast\n\n";
  md +=
      "| fold | bands fitted on | kernels n | inside % | width % | models n | inside % | "
      "width % |\n|---|---|---|---|---|---|---|---|\n";
  for (const auto& f : j.at("folds")) {
    const auto& b = f.at("bands");
    md += "| " + f.at("name").get<std::string>() + " | " + b.at("fitted_on").get<std::string>() +
          " | " + std::to_string(b.at("kernel_n").get<std::int64_t>()) + " | " +
          fixed1(b.at("kernel_inside_pct").get<double>()) + " | " +
          fixed1(b.at("kernel_mean_width_pct").get<double>()) + " | " +
          std::to_string(b.at("e2e_n").get<std::int64_t>()) + " | " +
          fixed1(b.at("e2e_inside_pct").get<double>()) + " | " +
          fixed1(b.at("e2e_mean_width_pct").get<double>()) + " |\n";
  }
  return md;
}

}  // namespace tilecast
