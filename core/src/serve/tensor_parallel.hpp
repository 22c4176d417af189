// Collectives of one serving replica's GPUs: tensor parallelism (Megatron-style: attention heads
// and the MLP's inner width split over the GPUs, one all-reduce of the hidden states after the
// attention output projection and one after the MLP's down projection, per layer) and expert
// parallelism's all-to-alls (serve/expert_parallel.hpp).
#pragma once

#include <optional>
#include <string>

#include "parallel/parallel.hpp"
#include "tilecast/comm.hpp"
#include "tilecast/gpu_spec.hpp"
#include "tilecast/model_config.hpp"
#include "tilecast/system.hpp"

namespace tilecast::detail {

// shard_model (one GPU's share of heads, intermediate and vocabulary widths) is shared with
// training: parallel/parallel.hpp.

// One collective's time over `gpus` GPUs for `bytes` per GPU: the comm model (core/src/comm) on
// the system such a group runs on (system_for_gpus: e.g. dgx-h100 for the H100 SXM, else one node
// wired as the GPU's catalog links say). Throws Error when there is none.
class NodeCollective {
 public:
  NodeCollective(const GpuSpec& gpu, int gpus, Collective collective = Collective::kAllReduce);
  double ms(double bytes) const;
  const std::string& description() const { return how_; }

 private:
  int gpus_ = 1;
  Collective collective_ = Collective::kAllReduce;
  std::optional<SystemSpec> system_;  // none for one GPU
  std::string how_;
};

}  // namespace tilecast::detail
