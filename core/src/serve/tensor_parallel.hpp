// Tensor parallelism for serving (Megatron-style): attention heads and the MLP's inner width
// split over the GPUs, one all-reduce of the hidden states after the attention output
// projection and one after the MLP's down projection, per layer.
#pragma once

#include <string>

#include "tilecast/gpu_spec.hpp"
#include "tilecast/model_config.hpp"
#include "tilecast/system.hpp"

namespace tilecast::detail {

// One GPU's share: heads / tp, key/value heads / tp (replicated when tp exceeds them),
// intermediate and vocabulary widths / tp (rounded up); a mixture's experts all on every GPU,
// each expert's (and the shared expert's) inner width / tp. Throws Error when tp does not divide
// the heads, or neither divides the other for the key/value heads.
ModelConfig shard_model(const ModelConfig& model, int tp);

// The all-reduce time of `bytes` per GPU over `tp` GPUs: the comm model (core/src/comm) on the
// catalog system built from this GPU (e.g. dgx-h100 for the H100 SXM), else a ring bound at
// the GPU's catalog NVLink (or PCIe) bandwidth. Throws Error when neither is known.
class AllReduce {
 public:
  AllReduce(const GpuSpec& gpu, int tp);
  double ms(double bytes) const;
  const std::string& description() const { return how_; }

 private:
  int tp_ = 1;
  const SystemSpec* system_ = nullptr;
  double link_gbps_ = 0;  // the fallback bound's bandwidth per direction
  std::string how_;
};

}  // namespace tilecast::detail
