// Memory per GPU for a training step (docs/parallel.md, "Memory"):
//   weights, gradients, optimizer  model_state_bytes (zero.cpp) of the stage's tp-sharded
//                                  parameters
//   activations  the bytes autograd keeps for backward per micro-batch (the graph's rules after
//                recomputation, recorded in FP32 and scaled to the workload's data type) times
//                the micro-batches alive at once: m for GPipe, min(m, pp - stage) for 1F1B
//   workspace    the largest forward output and its gradient (two transient tensors at once);
//                DDP's bucket buffers (a second copy of the gradients: PyTorch's default
//                gradient_as_bucket_view=False); ZeRO-3's gathered weights (two layers: the
//                current and the prefetched)
//   context      the CUDA context and framework (the same estimate as serving, serve/memory.hpp)
#include "serve/memory.hpp"

#include <algorithm>

#include "parallel/parallel.hpp"
#include "tilecast/precision.hpp"

namespace tilecast::detail {

TrainingMemory stage_memory(const GpuSpec& gpu, const MicrobatchReplay& mb, const ParallelConfig& c,
                            int stage, DataType dtype) {
  const ModelStateBytes states = model_state_bytes(mb.params, dtype, c.zero, c.dp);
  const int alive = c.schedule == PipelineSchedule::gpipe ? c.microbatches
                                                          : std::min(c.microbatches, c.pp - stage);
  TrainingMemory m;
  m.stage = stage;
  m.weights_gb = states.weights / 1e9;
  m.gradients_gb = states.gradients / 1e9;
  m.optimizer_gb = states.optimizer / 1e9;
  m.activations_gb = mb.saved_bytes * alive / 1e9;
  double workspace = 2 * mb.largest_output_bytes;
  if (c.dp > 1 && c.zero == 0) workspace += mb.params * dtype_bytes(dtype);
  if (c.zero == 3) workspace += 2 * mb.layer_params_max * dtype_bytes(dtype);
  m.workspace_gb = workspace / 1e9;
  m.context_gb = kContextGb;
  m.total_gb = m.weights_gb + m.gradients_gb + m.optimizer_gb + m.activations_gb + m.workspace_gb +
               m.context_gb;
  m.capacity_gb = gpu.mem_gb;
  m.fits = m.total_gb <= m.capacity_gb;
  return m;
}

}  // namespace tilecast::detail
