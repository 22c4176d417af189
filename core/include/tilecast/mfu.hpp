// Model FLOPs utilisation and the price of GPU time, one definition for every training
// forecast: the megatron engine's (docs/megatron.md) and the eager single- and multi-GPU
// step's (issue 32 item 9).
#pragma once

#include <cstdint>

#include "tilecast/gpu_spec.hpp"
#include "tilecast/model_config.hpp"
#include "tilecast/precision.hpp"

namespace tilecast {

// Model FLOPs of one training step (forward and backward: 3x the forward's) of `batch`
// sequences of `seq` tokens, Korthikanti et al. 2022 eq. 7 generalised to the layer's GEMM
// parameters, grouped-query attention, gated MLPs and the active experts; every attention score
// counted (causal or not), recomputation not. Throws Error for the architectures it does not
// cover (encoder-decoder), naming them.
double training_model_flops(const ModelConfig& model, std::int64_t batch, std::int64_t seq);

// The peak MFU divides by: the dense tensor-core peak of the activations' type (BF16 for FP8
// GEMMs), as Megatron-LM and NeMo report it; FP32 training: the FP32 GEMM peak the eager
// forecast's GEMMs run at (fp32_matrix_gflops: PyTorch's default, TF32 off).
double mfu_peak_tflops(const GpuSpec& gpu, DataType dtype);

struct ModelUtilization {
  double model_tflops_per_gpu = 0;
  double mfu = 0;  // a fraction of peak_tflops (0 without a peak)
  double peak_tflops = 0;
};
ModelUtilization model_utilization(double model_flops, double step_ms, std::int64_t gpus,
                                   double peak_tflops);

// What the responses' mfu_formula says.
extern const char* const kMfuFormula;

// The price of `ms` on `gpus` GPUs at `price_per_gpu_hour` (any currency).
double gpu_time_cost(double price_per_gpu_hour, std::int64_t gpus, double ms);

}  // namespace tilecast
