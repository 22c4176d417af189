// Memory per GPU for a training step (docs/parallel.md, "Memory"):
//   weights, gradients, optimizer  model_state_bytes (zero.cpp) of the stage's tp-sharded
//                                  trainable parameters; LoRA / QLoRA's frozen weights add
//                                  their stored bytes to the weights
//   activations  the bytes autograd keeps for backward per micro-batch (the graph's rules after
//                recomputation, in the bytes the graph records: FP32, or 16-bit GEMM inputs under
//                autocast) times
//                the micro-batches alive at once: m for GPipe, min(m, pp - stage) for 1F1B
//   workspace    the largest forward output and its gradient (two transient tensors at once);
//                DDP's bucket buffers (a second copy of the gradients: PyTorch's default
//                gradient_as_bucket_view=False); ZeRO-3's gathered weights (two layers: the
//                current and the prefetched)
//   context      the CUDA context and framework (the same estimate as serving, serve/memory.hpp)
#include "serve/memory.hpp"

#include <algorithm>
#include <cstdio>

#include "parallel/parallel.hpp"
#include "tilecast/precision.hpp"

namespace tilecast::detail {

TrainingMemory stage_memory(const GpuSpec& gpu, const MicrobatchReplay& mb, const ParallelConfig& c,
                            int stage, DataType dtype, MasterWeights master) {
  // LoRA / QLoRA: only the adapters train; the frozen weights are held as stored
  const ModelStateBytes states =
      model_state_bytes(mb.params - mb.frozen_params, dtype, c.zero, c.dp, master);
  const int alive = c.schedule == PipelineSchedule::gpipe ? c.microbatches
                                                          : std::min(c.microbatches, c.pp - stage);
  TrainingMemory m;
  m.stage = stage;
  m.weights_gb = (states.weights + mb.frozen_weight_bytes) / 1e9;
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
  m.capacity_gb = device_memory_bytes(gpu) / 1e9;
  m.fits = m.total_gb <= m.capacity_gb;
  return m;
}

}  // namespace tilecast::detail

namespace tilecast {
namespace {

// The share of capacity above which memory_caveats speaks.
constexpr double kPressureShare = 0.9;

}  // namespace

std::vector<std::string> memory_caveats(const TrainingMemory& m) {
  if (m.capacity_gb <= 0 || m.total_gb < kPressureShare * m.capacity_gb) return {};
  char head[200];
  std::snprintf(head, sizeof head,
                "memory: a training step with Adam needs about %.1f GB of the GPU's %.1f GB",
                m.total_gb, m.capacity_gb);
  std::string c = head;
  c += m.fits ? " (over 90%)" : ": it does not fit; the kernels are forecast as if it did";
  c += ". Near capacity PyTorch's caching allocator frees and retries allocations, which this "
       "forecast does not model: the dataset's four training steps whose working set (no "
       "optimizer states held) was 84-94% of the GPU's memory ran 11-39% slower than forecast "
       "(docs/parallel.md, \"Memory pressure\")";
  return {c};
}

TrainingMemory training_memory(const GpuSpec& gpu, const OpGraph& graph, DataType dtype,
                               MasterWeights master) {
  detail::MicrobatchReplay r;
  detail::tally_memory_inputs(graph, r);
  return detail::stage_memory(gpu, r, ParallelConfig{}, 0, dtype, master);
}

}  // namespace tilecast
