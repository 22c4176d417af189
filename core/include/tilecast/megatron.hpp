// Training as Megatron-LM / Megatron-Core runs it (docs/megatron.md): fused kernels in the half
// type, FlashAttention or Megatron's fused scale-mask-softmax, tensor parallelism with or
// without sequence parallelism, (interleaved) 1F1B pipelines with uneven splits, data-parallel
// gradient buckets overlapping the backward pass, the distributed optimizer, selective and full
// recomputation as Korthikanti et al. (2022) define them, and memory per GPU by their formulas.
// A closed-form step over each distinct kernel forecast once: a step on thousands of GPUs is
// forecast in well under a millisecond.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tilecast/gpu_spec.hpp"
#include "tilecast/kernel_forecast.hpp"
#include "tilecast/model_config.hpp"
#include "tilecast/op_graph.hpp"
#include "tilecast/parallel.hpp"
#include "tilecast/system.hpp"

namespace tilecast {

// The word requests and the CLI give this engine ("engine": "megatron"): a training engine on
// many GPUs with its own path, beside the single-GPU engines of `Engine` (kModelEngines).
inline constexpr std::string_view kMegatronEngine = "megatron";

// How the attention core runs: FlashAttention (FA2 on Ampere/Ada, FA3 on Hopper; the score
// matrix never written), or Megatron's fused scale-mask-softmax between two batched GEMMs (the
// scores materialised; Megatron-LM before FlashAttention, Korthikanti et al.'s runs).
enum class AttentionKernel { flash, fused_softmax };
std::string_view attention_kernel_name(AttentionKernel a);      // "flash" | "fused-softmax"
AttentionKernel parse_attention_kernel(std::string_view word);  // throws Error listing them

struct MegatronConfig {
  int dp = 1, tp = 1, pp = 1;
  int cp = 1;  // context parallelism: the sequence split over cp ranks, K/V passed round a ring
  int ep = 1;  // expert parallelism (MoE models): the experts split over ep of the dp ranks
  int microbatches = 1;    // per data-parallel replica and step
  int virtual_stages = 1;  // model chunks per pipeline rank: > 1 is the interleaved 1F1B
  bool sequence_parallel = false;
  Recompute recompute = Recompute::none;
  AttentionKernel attention = AttentionKernel::flash;
  bool distributed_optimizer = true;  // optimizer states sharded over dp, parameters gathered
  bool overlap_grad_reduce = true;    // gradient buckets reduced during the last backward
  double tokens = 0;                  // > 0: also the time to train on this many tokens
  long long gpus() const { return 1LL * dp * tp * pp * cp; }
};

// The critical pipeline rank's step, by what it waits on; they sum to step_ms.
struct MegatronBreakdown {
  double compute_ms = 0;    // kernels (recomputation included)
  double recompute_ms = 0;  // of which recomputation
  double tp_comm_ms = 0;    // exposed tensor-parallel collectives
  double pp_comm_ms = 0;    // exposed pipeline send/recv (and the tied embedding's gradient)
  double dp_comm_ms = 0;    // exposed data-parallel gradient reduction and parameter gather
  double bubble_ms = 0;     // pipeline fill and drain
  double optimizer_ms = 0;  // gradient zeroing, norm, Adam, the half-precision copy
};

struct MegatronForecast {
  MegatronConfig config;
  Workload workload;  // the whole step: global batch
  long long micro_batch = 0;
  Predictor predictor = Predictor::tilecast;
  std::string system;
  double step_ms = 0;
  double tokens_per_s = 0, tokens_per_s_per_gpu = 0, samples_per_s = 0;
  double model_flops = 0;     // per step, Korthikanti eq. 7 generalised (docs/megatron.md)
  double hardware_flops = 0;  // per step, recomputation included
  double model_tflops_per_gpu = 0, mfu = 0, hfu = 0;   // mfu, hfu: fractions of peak_tflops
  double peak_tflops = 0;                              // dense tensor peak of the precision
  double layer_forward_ms = 0, layer_backward_ms = 0;  // one layer, one micro-batch
  double stage_forward_ms = 0, stage_backward_ms = 0;  // the critical rank, one micro-batch
  std::vector<int> layers_per_stage;                   // pipeline ranks' layers
  MegatronBreakdown breakdown;
  TrainingMemory memory;  // the most loaded rank (activations by Korthikanti's formulas)
  double train_days = 0;  // config.tokens > 0
  // Ops no learned model covers on this GPU at their data type, forecast by the roofline.
  std::vector<std::string> roofline_fallbacks;
  // The kernels a transferred model forecast, "<model id> <type> <family>" (sorted, unique).
  std::vector<std::string> transfers_used;
  std::vector<std::string> assumptions;
};

// `w` is the whole step (training; batch = the global batch = dp x microbatches x micro-batch).
// Throws Error naming the field, the value and what would work.
MegatronForecast forecast_megatron(const GpuSpec& gpu, const SystemSpec& system,
                                   const ModelConfig& model, const Workload& w,
                                   const MegatronConfig& config, Predictor predictor);

std::string megatron_forecast_to_json(const GpuSpec& gpu, const ModelConfig& model,
                                      const MegatronForecast& f);

// The plan search over this engine's dimensions (docs/megatron.md, "Plan"): on `gpus` GPUs, every
// tp (dividing the heads, within a node) x cp x pp x dp (= gpus / (tp cp pp), dividing the global
// batch) x virtual stages x micro-batch size x recomputation x sequence parallelism (x ep for
// mixtures of experts), forecast with one shared kernel cache; the ones that fit, fastest first.
struct MegatronPlanRequest {
  int gpus = 0;
  std::int64_t global_batch = 0, seq = 0;
  DataType dtype = DataType::bf16;
  Predictor predictor = Predictor::tilecast;
  AttentionKernel attention = AttentionKernel::flash;
  int max_microbatch_size = 8;  // sequences per micro-batch tried: 1, 2, 4, ... up to this
  int max_virtual_stages = 8;   // model chunks per pipeline rank tried: 1, 2, 4, ... up to this
  int max_cp = 8;               // context-parallel sizes tried: 1, 2, 4, ... up to this
  std::size_t top = 20;
};
struct MegatronPlanEntry {
  MegatronConfig config;
  long long micro_batch = 0;
  double step_ms = 0, tokens_per_s_per_gpu = 0, mfu = 0, memory_gb = 0, capacity_gb = 0;
  MegatronBreakdown breakdown;
};
struct MegatronPlanResult {
  long long considered = 0, does_not_divide = 0, does_not_fit = 0, fitting = 0;
  std::vector<MegatronPlanEntry> by_step;  // the `top` fastest that fit
};
MegatronPlanResult plan_megatron(const GpuSpec& gpu, const SystemSpec& system,
                                 const ModelConfig& model, const MegatronPlanRequest& request);

}  // namespace tilecast
