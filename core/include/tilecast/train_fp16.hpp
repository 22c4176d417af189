// The FP16 trainer: fits the tensor-core GEMM, 2-byte element-wise, layer-norm and token-row
// (RMSNorm, rotary, SiLU-and-mul, embedding) models to the vidur per-operator timings
// (tilecast/vidur_ops.hpp) and writes a kernel weights file of their own
// (core/data/models/nvidia-half/kernel_weights.json). Deterministic for a seed, like `tilecast
// train`, whose FP32 models it leaves alone.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tilecast/gpu_spec.hpp"
#include "tilecast/train.hpp"

namespace tilecast {

// One GPU's measurements: its spec and its mlp.csv files (names relative to the data folder,
// e.g. "a100/meta-llama/Llama-2-7b-hf/mlp.csv", so the hash does not depend on where it is).
struct Fp16TrainInput {
  GpuSpec gpu;
  std::vector<TrainText> csvs;
};

struct Fp16TrainConfig {
  std::uint64_t seed = 1;
  int epochs = 0;  // 0: each family's default
};

// Every hyperparameter that shapes the weights, as one canonical line.
std::string fp16_train_config_text(const Fp16TrainConfig& config);

// FNV-1a 64 over the GPUs' specs, the CSVs' names and texts and the config line.
std::uint64_t fp16_training_hash(const std::vector<Fp16TrainInput>& inputs,
                                 const Fp16TrainConfig& config);

// The analytic tensor-core GEMM model's fit (core/data/models/nvidia-half-gemm/tensor_gemm.json):
// its form and fit as one line, and the FNV-1a 64 over the GPUs' specs, the CSVs and that line.
std::string tensor_gemm_config_text();
std::uint64_t tensor_gemm_training_hash(const std::vector<Fp16TrainInput>& inputs);

struct Fp16TrainResult {
  std::string weights_json;
  std::string gemm_json;  // the analytic GEMM model fitted on the same GEMM samples
  std::map<std::string, FamilyLoss> losses;  // by family
  std::int64_t rows = 0;                     // operator measurements read
  std::int64_t samples = 0;  // distinct (GPU, kernel) pairs trained on (repeats: their median)
  std::uint64_t hash = 0;
};

// Throws tilecast::Error for a malformed row (file and line).
Fp16TrainResult train_fp16_models(const std::vector<Fp16TrainInput>& inputs,
                                  const Fp16TrainConfig& config, const std::string& command,
                                  const std::function<void(const TrainProgress&)>& progress = {});

}  // namespace tilecast
