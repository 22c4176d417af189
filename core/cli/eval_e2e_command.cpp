// `tilecast eval-e2e`: whole-model forecasts against the dataset's measured
// end-to-end latencies, per case and as mean absolute error per GPU and mode.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "command.hpp"
#include "io.hpp"
#include "label_files.hpp"
#include "model_flag.hpp"
#include "tilecast/e2e_eval.hpp"
#include "tilecast/enum_names.hpp"
#include "tilecast/error.hpp"
#include "weights_flag.hpp"

namespace tilecast::cli {
namespace {

// Training steps whose label records its forward and backward phases: each phase's error, so a
// step's miss can be placed (e.g. a forward that outlasts its own operators).
void print_phases(const E2eReport& report) {
  if (std::none_of(report.cases.begin(), report.cases.end(),
                   [](const E2eCase& c) { return c.has_phases(); }))
    return;
  std::printf("\ntraining steps by phase (the label's fw_latency and bwall_latency)\n");
  std::printf("%-28s %-11s %5s %5s %12s %12s %8s %12s %12s %8s\n", "gpu", "model", "seq", "batch",
              "forward ms", "predicted", "error %", "backward ms", "predicted", "error %");
  for (const auto& c : report.cases)
    if (c.has_phases())
      std::printf("%-28s %-11s %5lld %5lld %12.2f %12.2f %+8.1f %12.2f %12.2f %+8.1f\n",
                  c.gpu.c_str(), c.model.c_str(), static_cast<long long>(c.seq),
                  static_cast<long long>(c.batch), c.measured_forward_ms, c.predicted_forward_ms,
                  c.forward_error_pct(), c.measured_backward_ms, c.predicted_backward_ms,
                  c.backward_error_pct());
}

int run_eval_e2e(const Args& args) {
  apply_weights_flag(args);
  const std::string devices = args.require("devices"), models = args.require("models"),
                    labels = args.require("labels");
  const Predictor predictor = parse_predictor(args.get("predictor", "tilecast"));
  if (args.has("model") || args.has("model-dir")) apply_model_flag(args, read_device_dir(devices));
  const LabelFiles files = collect_labels(devices, models, labels, true);
  const std::vector<E2eInput>& inputs = files.inputs;
  const std::vector<std::string>& skipped = files.skipped;
  const std::vector<std::string>& notes = files.notes;
  const E2eReport report = evaluate_e2e(inputs, predictor);
  if (args.has("json")) {
    std::printf("%s\n", e2e_report_to_json(report).c_str());
    return 0;
  }
  std::printf("%-28s %-11s %-9s %-6s %5s %5s %12s %12s %8s %10s\n", "gpu", "model", "mode",
              "option", "seq", "batch", "measured ms", "predicted ms", "error %", "roofline %");
  for (const auto& c : report.cases)
    std::printf("%-28s %-11s %-9s %-6s %5lld %5lld %12.2f %12.2f %+8.1f %+10.1f\n", c.gpu.c_str(),
                c.model.c_str(), c.mode.c_str(), c.option.c_str(), static_cast<long long>(c.seq),
                static_cast<long long>(c.batch), c.measured_ms, c.predicted_ms, c.error_pct,
                c.roofline_error_pct);
  std::printf("\nmean absolute error (%s predictor; roofline beside)\n",
              std::string(predictor_name(predictor)).c_str());
  std::printf("%-28s %-9s %-6s %3s %10s %10s %9s\n", "gpu", "mode", "option", "n", "error %",
              "roofline %", "max %");
  for (const auto& s : report.summary)
    std::printf("%-28s %-9s %-6s %3d %10.1f %10.1f %9.1f\n", s.gpu.c_str(), s.mode.c_str(),
                s.option.c_str(), s.n, s.mean_abs_error_pct, s.roofline_mean_abs_error_pct,
                s.max_abs_error_pct);
  print_phases(report);
  if (!skipped.empty())
    std::printf("\nskipped %zu labels with options not modelled here\n", skipped.size());
  std::printf(
      "multi-GPU labels (dp<N>, tp<N>, pp<N>_<M>) run on %s; their batch is the global "
      "batch (docs/parallel.md)\n",
      kLabelSystem);
  for (const auto& n : notes) std::printf("note: %s\n", n.c_str());
  return 0;
}

[[maybe_unused]] const bool eval_e2e_registered =
    register_command({"eval-e2e",
                      "--devices DIR --models DIR --labels DIR [--predictor " +
                          enum_names_joined(predictor_names(), "|") +
                          "] [--json] "
                          "[--weights DIR] [--model ID]... [--model-dir DIR]",
                      "whole-model forecasts against measured end-to-end latencies",
                      {"devices", "models", "labels", "predictor", "weights", "model", "model-dir"},
                      {"json"},
                      run_eval_e2e});

}  // namespace
}  // namespace tilecast::cli
