// The trainer: fits the per-family utilization MLPs (SMAPE, AdamW) and builds the
// GEMM tile-selection table from measured kernel CSVs. Deterministic for a seed.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tilecast/gpu_spec.hpp"

namespace tilecast {

struct TrainConfig {
  std::uint64_t seed = 1;
  int epochs = 0;             // 0: each family's default
  std::int64_t max_rows = 0;  // per family, 0: all
  std::vector<std::string> held_out_devices = {"NVIDIA A100 80GB PCIe"};
  // Row families (softmax, layer norm) learn against the element-wise model's streaming time
  // with its launch cost (false) or without it (true: the family's own overhead head then
  // carries the whole launch). A model's choice, made by its validation: the AMD models
  // take true (docs/amd-model.md), the NVIDIA models false (docs/generalization.md).
  bool row_reference_without_launch = false;
};

// Every hyperparameter that shapes the weights, as one canonical line.
std::string train_config_text(const TrainConfig& config);

struct TrainText {
  std::string
      name;  // path relative to the data folder, e.g. "nvidia/kernels/train/add/Tesla T4.csv"
  std::string text;
};

// FNV-1a 64 over the inputs' names and texts, the device files and the config line.
std::uint64_t training_hash(const std::vector<TrainText>& csvs,
                            const std::vector<TrainText>& device_files, const TrainConfig& config);

struct TrainProgress {
  std::string family;
  int epoch = 0;
  int epochs = 0;
  double loss = 0;       // mean SMAPE of the epoch
  double elapsed_s = 0;  // since training began
  double left_s = 0;     // estimate for all families
};

struct FamilyLoss {
  double first = 0;
  double last = 0;
  std::int64_t rows = 0;
};

struct TrainResult {
  std::string weights_json;     // core/data/models/nvidia-fp32/kernel_weights.json
  std::string tile_table_json;  // core/data/models/nvidia-fp32/tile_table.json
  std::map<std::string, FamilyLoss> losses;
  std::int64_t rows_used = 0;
  std::int64_t rows_held_out = 0;  // rows of held_out_devices, never used
  std::uint64_t hash = 0;
};

// `device_files` are the device JSONs (dataset format) the CSVs' Device names resolve to.
// Throws tilecast::Error for a malformed row (file and line) or an unknown Device.
// The GEMM tile table alone (core/data/models/nvidia-fp32/tile_table.json): each training GPU's
// most measured tile per shape cell, from the same rows train_kernel_models reads; no fitting.
std::string build_tile_table(const std::vector<TrainText>& csvs,
                             const std::vector<TrainText>& device_files, const TrainConfig& config);

TrainResult train_kernel_models(const std::vector<TrainText>& csvs,
                                const std::vector<TrainText>& device_files,
                                const TrainConfig& config, const std::string& command,
                                const std::function<void(const TrainProgress&)>& progress = {});

}  // namespace tilecast
