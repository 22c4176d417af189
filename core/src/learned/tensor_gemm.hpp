// The analytic tensor-core GEMM model (FP16/BF16 on NVIDIA): three parameters shared by every
// GPU, fitted by `tilecast train-fp16` (core/data/models/nvidia-half-gemm/tensor_gemm.json). Chosen
// over the learned GEMM net because it carries across GPUs (docs/fp16-model.md): latency =
//   max(compute_scale x waves x a tile's FLOPs at the per-SM tensor peak,
//       bandwidth_scale x kernel bytes / DRAM bandwidth) + overhead_ms,
// the tile from the tensor-core tile rule (kernel/tensor_tiles.hpp). Where the peak is a share s
// of the full tensor rate (GeForce with FP32 accumulation: kernel/fp32_accumulate.hpp), the
// compute term's scale is 1 + (compute_scale - 1) x s.
#pragma once

#include <string>
#include <string_view>

#include "kernel/tiles.hpp"
#include "tilecast/gpu_spec.hpp"
#include "tilecast/kernel.hpp"

namespace tilecast {

// The form's two physical times of one kernel on one GPU, before any fitted parameter.
struct TensorGemmTerms {
  double compute_ms = 0;  // waves x tile FLOPs / (tensor peak / SMs)
  double memory_ms = 0;   // both operands read and the output written once, at DRAM bandwidth
  // The share of the full tensor rate the peak is (kernel/fp32_accumulate.hpp: 0.5 on GeForce
  // with FP32 accumulation, else 1): compute_scale's excess over 1 scales with it.
  double rate_share = 1;
};

TensorGemmTerms tensor_gemm_terms(const GpuSpec& gpu, const Kernel& k, const TilePlan& plan);

struct TensorGemmModel {
  double compute_scale = 0;    // 1 / tensor-core efficiency of a full wave
  double bandwidth_scale = 0;  // 1 / achieved fraction of DRAM bandwidth
  double overhead_ms = 0;      // fixed cost per kernel
  bool valid() const { return compute_scale > 0 && bandwidth_scale > 0; }
  double latency_ms(const TensorGemmTerms& t) const;
};

// The form, as the trainer writes it into the file and its config line.
inline constexpr std::string_view kTensorGemmForm =
    "max(compute_scale*waves*tile_flops/(tensor_peak/sm), "
    "bandwidth_scale*bytes/mem_bw)+overhead_ms";

// Throws tilecast::Error naming `origin` and the field for a malformed file, a missing or
// non-positive scale, a negative or non-finite overhead, or another form.
TensorGemmModel parse_tensor_gemm_model(std::string_view json_text, std::string_view origin);

// The embedded model: core/data/models/nvidia-half-gemm (forecast/model_registry.hpp).

}  // namespace tilecast
