// End-to-end accuracy: whole-model forecasts against measured latencies (the
// dataset's labels/<device>/<model>-<inf|train>-<seq>-<batch>.json). Text in,
// report out, so the CLI and the accuracy test share one implementation.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tilecast/kernel_forecast.hpp"
#include "tilecast/parallel.hpp"

namespace tilecast {

// "<model>-<inf|train>-<seq>-<batch>[-<option>]" (a label file's stem).
struct LabelName {
  std::string model;
  bool training = false;
  std::int64_t seq = 0;
  std::int64_t batch = 0;
  std::string option;  // "fusion", "dp4", "tp4", "pp4_1", ... or empty
};
std::optional<LabelName> parse_label_name(std::string_view stem);

// The multi-GPU run a label option names: "dp<N>", "tp<N>", "pp<N>_<micro-batches>"; nullopt
// for anything else. The label's batch is the global batch (docs/parallel.md, "Evaluation").
std::optional<ParallelConfig> parallel_option(std::string_view option);
// The option of a torch.compile run, forecast with Engine::compiled (docs/fusion.md).
inline constexpr const char* kFusionOption = "fusion";
// Whether evaluate_e2e models a label: no option, a multi-GPU option on a training label, or
// "fusion".
bool option_modelled(const LabelName& name);
// The system the dataset's multi-GPU labels ran on: GPUs of the labelled kind over NVSwitch.
inline constexpr const char* kLabelSystem = "dgx-a100";

struct E2eInput {
  std::string label_stem;  // e.g. "gpt2_large-train-1024-1"
  std::string gpu_json;    // device spec (dataset or catalog format)
  std::string model_json;  // Hugging Face config
  std::string label_json;  // {"e2e_latency": ms, ...}
};

struct E2eCase {
  std::string gpu, model, mode;
  std::string option;  // "", "dp4", "tp4", "pp4_1", "fusion"
  std::int64_t seq = 0, batch = 0;
  double measured_ms = 0, predicted_ms = 0, error_pct = 0;
  double roofline_ms = 0, roofline_error_pct = 0;
  double band_low_ms = 0, band_high_ms = 0;  // the forecast's 80% band; 0: none
  // A single-GPU training label that records its phases (fw_latency, bwall_latency): the
  // forward and backward measured and forecast; all 0 otherwise. Where a step's error lies.
  double measured_forward_ms = 0, measured_backward_ms = 0;
  double predicted_forward_ms = 0, predicted_backward_ms = 0;
  bool has_phases() const { return measured_forward_ms > 0 && measured_backward_ms > 0; }
  // (forecast - measured) / measured of each phase, %; only where has_phases().
  double forward_error_pct() const {
    return 100 * (predicted_forward_ms - measured_forward_ms) / measured_forward_ms;
  }
  double backward_error_pct() const {
    return 100 * (predicted_backward_ms - measured_backward_ms) / measured_backward_ms;
  }
};

struct E2eSummary {
  std::string gpu, mode;
  std::string option;
  int n = 0;
  double mean_abs_error_pct = 0, roofline_mean_abs_error_pct = 0, max_abs_error_pct = 0;
};

struct E2eReport {
  std::vector<E2eCase> cases;
  std::vector<E2eSummary> summary;  // per GPU, mode and option, in order of first appearance
};

// Forecasts every input; labels with a multi-GPU option (parallel_option) on kLabelSystem,
// "fusion" labels with the compiled engine. Throws tilecast::Error naming the label when an
// input is malformed or its option is not modelled (option_modelled).
E2eReport evaluate_e2e(const std::vector<E2eInput>& inputs, Predictor predictor);

// {"cases":[...],"summary":[...]}
std::string e2e_report_to_json(const E2eReport& report);

}  // namespace tilecast
