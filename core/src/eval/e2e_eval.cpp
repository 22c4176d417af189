#include "tilecast/e2e_eval.hpp"

#include <charconv>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "common/json_fields.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_spec.hpp"
#include "tilecast/model_forecast.hpp"
#include "tilecast/op_graph.hpp"
#include "tilecast/system.hpp"

namespace tilecast {
namespace {

std::optional<std::int64_t> to_int(std::string_view s) {
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size() || v < 1) return std::nullopt;
  return v;
}

// A band bound, or null when the forecast has no band.
nlohmann::ordered_json band_or_null(double ms, double high_ms) {
  return high_ms > 0 ? nlohmann::ordered_json(ms) : nlohmann::ordered_json(nullptr);
}

// {"forward":{measured_ms, predicted_ms, error_pct}, "backward":{...}}; null without phases.
nlohmann::ordered_json phases_json(const E2eCase& c) {
  if (!c.has_phases()) return nullptr;
  const auto phase = [](double measured, double predicted, double error_pct) {
    return nlohmann::ordered_json{
        {"measured_ms", measured}, {"predicted_ms", predicted}, {"error_pct", error_pct}};
  };
  return {
      {"forward", phase(c.measured_forward_ms, c.predicted_forward_ms, c.forward_error_pct())},
      {"backward", phase(c.measured_backward_ms, c.predicted_backward_ms, c.backward_error_pct())}};
}

}  // namespace

std::optional<LabelName> parse_label_name(std::string_view stem) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t pos = stem.find('-', start);
    parts.push_back(stem.substr(start, pos == std::string_view::npos ? pos : pos - start));
    if (pos == std::string_view::npos) break;
    start = pos + 1;
  }
  if (parts.size() < 4 || parts.size() > 5) return std::nullopt;
  LabelName n;
  n.model = std::string(parts[0]);
  if (parts[1] == "train")
    n.training = true;
  else if (parts[1] != "inf")
    return std::nullopt;
  auto seq = to_int(parts[2]), batch = to_int(parts[3]);
  if (!seq || !batch || n.model.empty()) return std::nullopt;
  n.seq = *seq;
  n.batch = *batch;
  if (parts.size() == 5) n.option = std::string(parts[4]);
  return n;
}

std::optional<ParallelConfig> parallel_option(std::string_view option) {
  if (option.size() < 3) return std::nullopt;
  const std::string_view kind = option.substr(0, 2), rest = option.substr(2);
  ParallelConfig c;
  if (kind == "dp" || kind == "tp") {
    const auto n = to_int(rest);
    if (!n || *n > 4096) return std::nullopt;
    (kind == "dp" ? c.dp : c.tp) = int(*n);
    return c;
  }
  if (kind == "pp") {
    const std::size_t u = rest.find('_');
    if (u == std::string_view::npos) return std::nullopt;
    const auto n = to_int(rest.substr(0, u)), m = to_int(rest.substr(u + 1));
    if (!n || !m || *n > 4096 || *m > 65536) return std::nullopt;
    c.pp = int(*n);
    c.microbatches = int(*m);
    return c;
  }
  return std::nullopt;
}

bool option_modelled(const LabelName& name) {
  return name.option.empty() || name.option == kFusionOption ||
         (name.training && parallel_option(name.option));
}

E2eReport evaluate_e2e(const std::vector<E2eInput>& inputs, Predictor predictor) {
  E2eReport r;
  std::map<std::tuple<std::string, std::string, std::string>, std::size_t> index;
  for (const auto& in : inputs) {
    const auto name = parse_label_name(in.label_stem);
    if (!name)
      throw Error("label '" + in.label_stem + "': expected <model>-<inf|train>-<seq>-<batch>");
    if (!option_modelled(*name))
      throw Error("label '" + in.label_stem + "': option '" + name->option +
                  "' is not modelled (fusion, and dp<N>, tp<N>, pp<N>_<M> on training labels are)");
    const std::optional<ParallelConfig> parallel =
        name->option.empty() ? std::nullopt : parallel_option(name->option);
    const Engine engine = name->option == kFusionOption ? Engine::compiled : Engine::eager;
    const std::string origin = "label " + in.label_stem;
    const nlohmann::json label = detail::parse_json(in.label_json, origin);
    const double measured = detail::number_field(label, "e2e_latency", origin, 1e-9, 1e12);
    const GpuSpec gpu = parse_gpu_spec(in.gpu_json, "device of " + in.label_stem);
    const ModelConfig model = parse_model_config(in.model_json, "model " + name->model);
    const Workload w =
        make_workload(name->training ? Mode::training : Mode::inference, name->batch, name->seq);
    E2eCase c;
    c.option = name->option;
    c.gpu = gpu.name;
    c.model = name->model;
    c.mode = name->training ? "training" : "inference";
    c.seq = name->seq;
    c.batch = name->batch;
    c.measured_ms = measured;
    if (parallel) {
      const SystemSpec& system = find_system(kLabelSystem);
      const ParallelForecast step = forecast_parallel(gpu, system, model, w, *parallel, predictor);
      c.predicted_ms = step.step_ms;
      c.band_low_ms = step.band_low_ms;
      c.band_high_ms = step.band_high_ms;
      c.roofline_ms =
          predictor == Predictor::roofline
              ? c.predicted_ms
              : forecast_parallel(gpu, system, model, w, *parallel, Predictor::roofline).step_ms;
    } else {
      const OpGraph graph = build_gpu_graph(gpu, model, w, engine);
      const ModelForecast forecast = forecast_graph(gpu, graph, w, predictor);
      c.predicted_ms = forecast.latency_ms;
      if (name->training && label.contains("fw_latency") && label.contains("bwall_latency")) {
        c.measured_forward_ms = detail::number_field(label, "fw_latency", origin, 0, 1e12);
        c.measured_backward_ms = detail::number_field(label, "bwall_latency", origin, 0, 1e12);
        c.predicted_forward_ms = forecast.forward_ms;
        c.predicted_backward_ms = forecast.backward_ms;
      }
      c.band_low_ms = forecast.band_low_ms;
      c.band_high_ms = forecast.band_high_ms;
      c.roofline_ms = predictor == Predictor::roofline
                          ? c.predicted_ms
                          : forecast_graph(gpu, graph, w, Predictor::roofline).latency_ms;
    }
    c.error_pct = 100 * (c.predicted_ms - measured) / measured;
    c.roofline_error_pct = 100 * (c.roofline_ms - measured) / measured;
    const auto key = std::make_tuple(c.gpu, c.mode, c.option);
    auto it = index.find(key);
    if (it == index.end()) {
      it = index.emplace(key, r.summary.size()).first;
      E2eSummary s;
      s.gpu = c.gpu;
      s.mode = c.mode;
      s.option = c.option;
      r.summary.push_back(s);
    }
    auto& s = r.summary[it->second];
    s.n += 1;
    s.mean_abs_error_pct += std::fabs(c.error_pct);
    s.roofline_mean_abs_error_pct += std::fabs(c.roofline_error_pct);
    s.max_abs_error_pct = std::max(s.max_abs_error_pct, std::fabs(c.error_pct));
    r.cases.push_back(c);
  }
  for (auto& s : r.summary) {
    s.mean_abs_error_pct /= s.n;
    s.roofline_mean_abs_error_pct /= s.n;
  }
  return r;
}

std::string e2e_report_to_json(const E2eReport& report) {
  nlohmann::ordered_json j;
  j["cases"] = nlohmann::ordered_json::array();
  for (const auto& c : report.cases)
    j["cases"].push_back({{"gpu", c.gpu},
                          {"model", c.model},
                          {"mode", c.mode},
                          {"option", c.option},
                          {"seq", c.seq},
                          {"batch", c.batch},
                          {"measured_ms", c.measured_ms},
                          {"predicted_ms", c.predicted_ms},
                          {"error_pct", c.error_pct},
                          {"band_low_ms", band_or_null(c.band_low_ms, c.band_high_ms)},
                          {"band_high_ms", band_or_null(c.band_high_ms, c.band_high_ms)},
                          {"roofline_ms", c.roofline_ms},
                          {"roofline_error_pct", c.roofline_error_pct},
                          {"phases", phases_json(c)}});
  j["summary"] = nlohmann::ordered_json::array();
  for (const auto& s : report.summary)
    j["summary"].push_back({{"gpu", s.gpu},
                            {"mode", s.mode},
                            {"option", s.option},
                            {"n", s.n},
                            {"mean_abs_error_pct", s.mean_abs_error_pct},
                            {"roofline_mean_abs_error_pct", s.roofline_mean_abs_error_pct},
                            {"max_abs_error_pct", s.max_abs_error_pct}});
  return j.dump(2);
}

}  // namespace tilecast
