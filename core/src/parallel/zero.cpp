// ZeRO (Rajbhandari et al. 2020): the model states of mixed-precision Adam are 2 (16-bit
// weights) + 2 (16-bit gradients) + 12 (FP32 master weights, momentum, variance) bytes per
// parameter; stage 1 shards the optimizer states over the data-parallel ranks, stage 2 the
// gradients as well, stage 3 the weights as well. FP32 training keeps 4 + 4 + 8 (no master
// copy). Communication: stages 1 and 2 reduce-scatter the gradients (in the same buckets as
// DDP) and all-gather the updated weights after the optimizer step; stage 3 all-gathers each
// layer's weights before its forward and again before its backward, and reduce-scatters the
// gradients (1.5x DDP's volume). By default both DeepSpeed and FSDP overlap stage 3's gathers
// with compute: DeepSpeed prefetches parameters ahead of use (stage3_prefetch_bucket_size, and
// overlap_comm is on for stage 3; https://www.deepspeed.ai/docs/config-json/), FSDP issues each
// unit's all-gather on its own stream ahead of the compute (backward_prefetch BACKWARD_PRE by
// default; https://pytorch.org/docs/stable/fsdp.html). The step (step.cpp) prefetches one layer
// ahead; ParallelConfig::zero3_prefetch = false makes each gather block its layer.
#include <string>

#include "parallel/parallel.hpp"
#include "tilecast/error.hpp"
#include "tilecast/precision.hpp"

namespace tilecast {

ModelStateBytes model_state_bytes(double params, DataType dtype, int zero, int dp,
                                  MasterWeights master) {
  if (zero < 0 || zero > 3)
    throw Error("zero must be 0 (none), 1, 2 or 3, got " + std::to_string(zero));
  if (dp < 1) throw Error("dp must be a positive integer, got " + std::to_string(dp));
  const bool mixed = dtype_bytes(dtype) < 4;
  const double w = mixed ? dtype_bytes(dtype) : 4;  // the weights the kernels read
  const double g = w;                               // gradients in the weights' type
  // (FP32 master +) two FP32 moments; half master weights: two moments in the half type
  const double o = !mixed ? 8 : master == MasterWeights::half ? 2 * w : 12;
  ModelStateBytes b;
  b.weights = params * w / (zero >= 3 ? dp : 1);
  b.gradients = params * g / (zero >= 2 ? dp : 1);
  b.optimizer = params * o / (zero >= 1 ? dp : 1);
  return b;
}

double all_gather_received_bytes(double gathered_bytes, int dp) {
  if (dp < 1) throw Error("dp must be a positive integer, got " + std::to_string(dp));
  return gathered_bytes * double(dp - 1) / double(dp);
}

}  // namespace tilecast
