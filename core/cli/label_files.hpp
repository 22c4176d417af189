// Whole-model labels on disk (labels/<device>/<model>-<inf|train>-<seq>-<batch>.json beside
// devices/ and models/ folders), gathered into evaluation inputs.
#pragma once

#include <string>
#include <vector>

#include "tilecast/e2e_eval.hpp"

namespace tilecast::cli {

struct LabelFiles {
  std::vector<E2eInput> inputs;
  std::vector<std::string> skipped;  // labels with options (not modelled), "<device>/<stem>"
  std::vector<std::string> notes;    // labels left out and why
};

// Every label of every device folder under `labels_dir`, with its device spec
// (`devices_dir/<device>.json`) and model config (`models_dir/<model>.json`). Where a
// machine.json beside `labels_dir` (the measurement kit's) names the transformers release the
// labels ran, each model config gets it as "tilecast_transformers_version" unless it names one.
// with_options: also the labels with an option eval-e2e models (multi-GPU dp<N>, tp<N>,
// pp<N>_<M>; torch.compile's fusion: option_modelled); otherwise every label with an option is
// skipped.
LabelFiles collect_labels(const std::string& devices_dir, const std::string& models_dir,
                          const std::string& labels_dir, bool with_options = false);

}  // namespace tilecast::cli
