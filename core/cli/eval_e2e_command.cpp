// `tilecast eval-e2e`: whole-model forecasts against the dataset's measured
// end-to-end latencies, per case and as mean absolute error per GPU and mode.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "command.hpp"
#include "io.hpp"
#include "tilecast/e2e_eval.hpp"
#include "tilecast/error.hpp"

namespace tilecast::cli {
namespace {

std::vector<std::string> subdirectories(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw Error("--labels: '" + dir + "' is not a directory");
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.is_directory()) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string stem_of(const std::string& path) { return std::filesystem::path(path).stem().string(); }

int run_eval_e2e(const Args& args) {
  const std::string devices = args.require("devices"), models = args.require("models"),
                    labels = args.require("labels");
  const Predictor predictor = parse_predictor(args.get("predictor", "tilecast"));
  std::vector<E2eInput> inputs;
  std::vector<std::string> skipped, notes;
  for (const auto& device : subdirectories(labels)) {
    const std::string spec = devices + "/" + device + ".json";
    const auto files = list_files(labels + "/" + device, ".json");
    if (files.empty()) continue;
    if (!is_regular_file(spec)) {
      notes.push_back("no device file " + spec + ": " + std::to_string(files.size()) +
                      " labels of " + device + " skipped");
      continue;
    }
    const std::string gpu_json = read_text_file(spec);
    for (const auto& f : files) {
      const std::string stem = stem_of(f);
      const auto name = parse_label_name(stem);
      if (!name) {
        notes.push_back("not a label name: " + device + "/" + stem);
        continue;
      }
      if (!name->option.empty()) {
        skipped.push_back(device + "/" + stem);
        continue;
      }
      const std::string model = models + "/" + name->model + ".json";
      if (!is_regular_file(model)) {
        notes.push_back("no model config " + model + ": " + device + "/" + stem + " skipped");
        continue;
      }
      inputs.push_back({stem, gpu_json, read_text_file(model), read_text_file(f)});
    }
  }
  const E2eReport report = evaluate_e2e(inputs, predictor);
  if (args.has("json")) {
    std::printf("%s\n", e2e_report_to_json(report).c_str());
    return 0;
  }
  std::printf("%-28s %-11s %-9s %5s %5s %12s %12s %8s %10s\n", "gpu", "model", "mode", "seq",
              "batch", "measured ms", "predicted ms", "error %", "roofline %");
  for (const auto& c : report.cases)
    std::printf("%-28s %-11s %-9s %5lld %5lld %12.2f %12.2f %+8.1f %+10.1f\n", c.gpu.c_str(),
                c.model.c_str(), c.mode.c_str(), static_cast<long long>(c.seq),
                static_cast<long long>(c.batch), c.measured_ms, c.predicted_ms, c.error_pct,
                c.roofline_error_pct);
  std::printf("\nmean absolute error (%s predictor; roofline beside)\n",
              std::string(predictor_name(predictor)).c_str());
  std::printf("%-28s %-9s %3s %10s %10s %9s\n", "gpu", "mode", "n", "error %", "roofline %",
              "max %");
  for (const auto& s : report.summary)
    std::printf("%-28s %-9s %3d %10.1f %10.1f %9.1f\n", s.gpu.c_str(), s.mode.c_str(), s.n,
                s.mean_abs_error_pct, s.roofline_mean_abs_error_pct, s.max_abs_error_pct);
  if (!skipped.empty())
    std::printf("\nskipped %zu labels with options (fusion, dp4, tp4, pp*: not modelled yet)\n",
                skipped.size());
  for (const auto& n : notes) std::printf("note: %s\n", n.c_str());
  return 0;
}

[[maybe_unused]] const bool registered = register_command(
    {"eval-e2e",
     "--devices DIR --models DIR --labels DIR [--predictor tilecast|roofline] [--json]",
     "whole-model forecasts against measured end-to-end latencies",
     {"devices", "models", "labels", "predictor"},
     {"json"},
     run_eval_e2e});

}  // namespace
}  // namespace tilecast::cli
