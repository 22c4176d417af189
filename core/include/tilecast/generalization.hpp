// The generalization protocol (issue 10, docs/generalization.md): for each architecture among
// the training GPUs, train with every GPU of that architecture held out, then evaluate its
// kernel test rows and whole-model labels with those weights. GPUs of architectures no training
// GPU shares (Hopper: the H200 we measured; AMD CDNA) are evaluated with the full model. The
// out-of-architecture residuals of the retrained folds fit the 80% error bands.
//
// `run_generalization` (training and evaluation) is in tilecast_train; the aggregation and
// reports (`generalization_report_json`, `generalization_markdown`, `fit_error_bands`) are in
// tilecast_eval, so they are testable without training.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "tilecast/e2e_eval.hpp"
#include "tilecast/error_bands.hpp"
#include "tilecast/kernel.hpp"
#include "tilecast/train.hpp"

namespace tilecast {

struct GeneralizationFold {
  std::string name;               // e.g. "Ampere"
  std::vector<std::string> gpus;  // Device names: held out of training, then evaluated
  bool retrain = true;            // false: evaluated with the full model (the embedded weights)
  bool fits_bands = true;         // its residuals fit the committed error bands
};

// Pascal (P4, P100), Volta (V100), Turing (T4), Ampere (A100 40GB, with the always held-out
// A100 80GB), retrained and fitting the bands; then "Hopper (H200, measured by us)" and
// "CDNA (AMD)" with the full model, fitting nothing.
const std::vector<GeneralizationFold>& generalization_folds();

struct GeneralizationInputs {
  std::vector<TrainText> train_csvs;     // as scripts/train.sh lists them, named as `train` does
  std::vector<TrainText> train_devices;  // the device files those CSVs' Device names resolve to
  std::vector<TrainText> kernel_csvs;    // test kernels of the evaluated GPUs (others ignored)
  std::vector<TrainText> eval_devices;   // device files of every evaluated GPU
  std::vector<E2eInput> labels;          // whole-model labels, options filtered out
};

// One evaluated kernel: its forecast by the fold's model and the roofline.
struct KernelResidual {
  std::string gpu;
  Op op = Op::linear;
  double measured_ms = 0, predicted_ms = 0, roofline_ms = 0;
};

struct FoldRun {
  GeneralizationFold fold;
  std::vector<std::string> trained_on;  // the GPUs of the model that forecast it
  std::int64_t rows_trained = 0;
  std::int64_t rows_held_out = 0;
  std::vector<KernelResidual> kernels;
  std::vector<E2eCase> e2e;
};

// The protocol's version: what it computes beyond its inputs (fold rules, band fitting).
inline constexpr std::string_view kGeneralizationProtocol =
    "generalization-v1 bands=p10-p90,random-effects-t kernel_classes_ms=0.05,0.5,5 "
    "cv=leave-one-fold-out";

// FNV-1a 64 of everything that determines the report: per retrained fold the training hash
// (its input names and texts, device files, trainer config with the fold's held-out GPUs), the
// evaluation inputs (kernel CSVs, device files, labels, model configs), the fold definitions,
// the full model (embedded kernel_weights.json and tile_table.json) and the protocol version.
// Not covered: the forecast code itself (graph, replay, features); rerun after changing it.
std::uint64_t generalization_hash(const GeneralizationInputs& in,
                                  const std::vector<GeneralizationFold>& folds,
                                  const TrainConfig& config);

// Runs the folds in order. A retrained fold trains with `config` (seed, epochs, max_rows; held
// out: config's GPUs and the fold's), its weights become the learned model while it is
// evaluated; full-model folds use the embedded weights, which are the learned model again at
// the end. `progress` gets one line per stage. Deterministic for the inputs and config.
std::vector<FoldRun> run_generalization(
    const GeneralizationInputs& in, const std::vector<GeneralizationFold>& folds,
    const TrainConfig& config, const std::function<void(const std::string&)>& progress = {});

// The 80% bands from the residuals of the runs whose fold fits bands, leaving out `skip` (a
// fold name; "" leaves none out), each fold one architecture of a random-effects predictive
// band (eval/band_fit.hpp). Kernel bands per family and size class, falling back to the
// family's pooled residuals for a class with fewer than 50 or none from some fold; model bands
// per mode (likewise with 5: both modes pooled).
ErrorBands fit_error_bands(const std::vector<FoldRun>& runs, std::string_view skip = "");

// The report: per fold kernel MAPE and signed mean error per op group (per GPU and pooled),
// whole-model MAE, signed mean and max per GPU and mode, and the band check (coverage and mean
// width: retrained folds against bands fitted on the other retrained folds, the others against
// the committed bands). Numbers rounded to 0.01; deterministic.
std::string generalization_report_json(const std::vector<FoldRun>& runs, const TrainConfig& config,
                                       const std::string& hash, const std::string& command);
// The runs' residuals, tagged with the protocol hash (for re-aggregating without retraining;
// not a committed output), and back.
std::string fold_runs_to_json(const std::vector<FoldRun>& runs, const std::string& hash);
std::vector<FoldRun> fold_runs_from_json(std::string_view json_text, std::string_view origin);
std::string fold_runs_hash(std::string_view json_text);

// The README block (markdown tables) rendered from that JSON.
std::string generalization_markdown(std::string_view report_json);

}  // namespace tilecast
