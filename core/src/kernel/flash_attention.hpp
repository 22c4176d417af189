// FlashAttention's speed by GPU generation (core/data/engines/flash_attention.json): the share
// of the dense tensor peak its forward and backward kernels reach, as the kernels' papers
// publish it, growing with the keys per query; never faster than the roofline.
#pragma once

#include <optional>
#include <string>

#include "tilecast/gpu_spec.hpp"

namespace tilecast::detail {

struct FlashAttentionTime {
  double ms = 0;
  double efficiency = 0;  // of the dense tensor peak, before the roofline bound
  std::string kernel;     // "FlashAttention-2", ...
  bool assumed = false;   // the GPU's generation has no published figure of its own
  std::string source;
};

// A FlashAttention kernel's share of the dense tensor peak at `keys` keys per query, from the
// table's figure for long sequences (forward or backward) and its s_half.
inline double flash_efficiency(double max_efficiency, double keys, double s_half) {
  return max_efficiency * keys / (keys + s_half);
}

// The forward kernel's share of the dense tensor peak at `keys` keys per query is
// max_efficiency x keys / (keys + s_half): the table's figures for the GPU's generation where it
// has them and the type is FP16/BF16 with a tensor peak (FlashAttention runs on tensor cores).
struct FlashForward {
  double max_efficiency = 0;
  double s_half = 0;
};
std::optional<FlashForward> flash_forward(const GpuSpec& gpu, DataType dtype);

// Throws Error when the GPU's architecture runs no FlashAttention (Pascal, Volta, unknown),
// naming the alternative (--attention fused-softmax).
FlashAttentionTime flash_attention_time(const GpuSpec& gpu, DataType dtype, double flops,
                                        double bytes, double keys, bool backward);

}  // namespace tilecast::detail
