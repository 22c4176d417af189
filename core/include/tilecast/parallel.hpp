// Training on many GPUs (docs/parallel.md): data parallelism as PyTorch DDP (bucketed gradient
// all-reduces overlapping backward), Megatron tensor parallelism, GPipe / 1F1B pipelines over
// micro-batches, ZeRO 1/2/3, activation recomputation, and the memory each GPU needs. The step
// is replayed on each pipeline stage's compute and communication streams; its time is the
// critical path, not a sum.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tilecast/gpu_spec.hpp"
#include "tilecast/kernel_forecast.hpp"
#include "tilecast/model_config.hpp"
#include "tilecast/op_graph.hpp"
#include "tilecast/system.hpp"

namespace tilecast {

enum class Recompute { none, selective, full };
std::string_view recompute_name(Recompute r);      // "none" | "selective" | "full"
Recompute parse_recompute(std::string_view word);  // throws Error listing them

enum class PipelineSchedule { gpipe, one_f_one_b };
std::string_view schedule_name(PipelineSchedule s);  // "gpipe" | "1f1b"
PipelineSchedule parse_schedule(std::string_view word);

struct ParallelConfig {
  int dp = 1, tp = 1, pp = 1;
  int microbatches = 1;  // per data-parallel rank and step
  int zero = 0;          // ZeRO stage 0 (plain DDP) .. 3
  Recompute recompute = Recompute::none;
  PipelineSchedule schedule = PipelineSchedule::one_f_one_b;
  double bucket_mb = 25;  // DDP's bucket_cap_mb
  // ZeRO-3: each layer's parameter all-gather is prefetched one layer ahead on the
  // communication stream, overlapping compute (DeepSpeed's and FSDP's default, zero.cpp); false:
  // each gather blocks the layer's first kernel.
  bool zero3_prefetch = true;
  // The graph every rank replays: eager (PyTorch eager with autocast) or compiled
  // (torch.compile: element-wise chains fused, docs/fusion.md). fused is the serving engine's.
  Engine engine = Engine::eager;
  // dp x tp x pp in 64 bits; throws Error when the product does not fit (no wrap to 0).
  std::int64_t gpus() const;
};

// Memory one GPU needs for a training step (the most loaded GPU: pipeline stage 0 for
// activations), GB = 1e9 bytes.
struct TrainingMemory {
  double weights_gb = 0;
  double gradients_gb = 0;
  double optimizer_gb = 0;    // Adam: two moments (+ FP32 master weights in mixed precision)
  double activations_gb = 0;  // kept for backward, micro-batches in flight, per recompute mode
  double workspace_gb = 0;    // transient: largest op output and its gradient, comm buffers
  double context_gb = 0;      // CUDA context and framework
  double total_gb = 0;
  double capacity_gb = 0;
  bool fits = false;
  int stage = 0;  // the pipeline stage this is for
};

// Bytes per parameter of the model states (weights, gradients, optimizer) with Adam: FP32
// training 4 + 4 + 8; mixed precision (16-bit dtype) 2 + 2 + 12 (FP32 master + moments; the
// ZeRO paper's 16 bytes per parameter); half master weights (model.to(bf16)) 2 + 2 + 4 (Adam's
// moments in the parameters' type, as torch.optim.Adam keeps them). ZeRO stage z shards the
// optimizer (z >= 1), the gradients (z >= 2) and the weights (z = 3) over `dp` ranks.
struct ModelStateBytes {
  double weights = 0, gradients = 0, optimizer = 0;
};
ModelStateBytes model_state_bytes(double params, DataType dtype, int zero, int dp,
                                  MasterWeights master = MasterWeights::fp32);
// Bytes one GPU receives in an all-gather of `gathered_bytes` over `dp` ranks: the shards it
// does not hold, gathered_bytes x (dp - 1) / dp (ZeRO-3's parameter gathers).
double all_gather_received_bytes(double gathered_bytes, int dp);

// One stage's streams over the step (ms from the step's start).
struct StreamSpan {
  std::string what;  // "forward", "backward", "recompute", "all_reduce (dp)", "send", ...
  int microbatch = -1;
  double start_ms = 0, finish_ms = 0;
};
struct StageStreams {
  int stage = 0;
  double compute_busy_ms = 0;       // kernels (recomputation included)
  double comm_busy_ms = 0;          // every collective this stage's GPU takes part in
  double exposed_comm_ms = 0;       // compute waiting on tensor-parallel / ZeRO-3 collectives
  double bubble_ms = 0;             // step - busy compute - exposed communication
  std::vector<StreamSpan> compute;  // micro-batch chunks
  std::vector<StreamSpan> comm;     // gradient buckets, activation sends, parameter gathers
  // Spans run on each stream; beyond a few thousand in all, `compute` and `comm` keep those of
  // the first and last micro-batches only (docs/parallel.md).
  std::int64_t compute_spans = 0, comm_spans = 0;
};

// ZeRO-3's parameter all-gathers over the dp group in one step on the critical stage: each
// layer's (tp-sharded) parameters before its forward and again before its backward, every
// micro-batch. Empty (gathers 0) for ZeRO 0-2 or dp 1.
struct ParamGathers {
  std::int64_t gathers = 0;        // collectives per step
  double gathered_gb = 0;          // the gathered (full-layer) bytes, summed
  double received_gb_per_gpu = 0;  // each GPU receives the other dp - 1 shards: x (dp-1)/dp
  double largest_layer_gb = 0;     // the largest single gather
  double busy_ms = 0;              // on the communication stream, summed
};

struct ParallelForecast {
  ParallelConfig config;
  Workload workload;            // the whole step: global batch
  std::int64_t microbatch = 0;  // sequences per micro-batch
  Predictor predictor = Predictor::tilecast;
  std::string system;  // the system's id
  double step_ms = 0;
  // The step's 80% band (ms): the single-GPU whole-model band carried over (0 when none: the
  // roofline predictor, or no bands built in); tilecast/error_bands.hpp, docs/parallel.md.
  double band_low_ms = 0, band_high_ms = 0;
  double forward_ms = 0;       // one micro-batch on the slowest stage
  double backward_ms = 0;      // one micro-batch on the slowest stage (recomputation included)
  double bubble_fraction = 0;  // the critical stage's idle share of the step
  double samples_per_s = 0, tokens_per_s = 0, tokens_per_s_per_gpu = 0;
  double params = 0;  // the whole model
  // The critical stage's step by kind: kOpKindCount op kinds, then communication (exposed),
  // then bubble; they sum to step_ms.
  std::array<double, kOpKindCount> breakdown_ms{};
  double communication_ms = 0;
  double bubble_ms = 0;
  std::vector<StageStreams> stages;
  TrainingMemory memory;
  ParamGathers param_gathers;  // ZeRO-3 only
  std::vector<std::string> assumptions;
  // Ops no learned model covers on this GPU's vendor at their data type, forecast by the
  // roofline instead (sorted, unique).
  std::vector<std::string> roofline_fallbacks;
  // The kernels a transferred model forecast, "<model id> <type> <family>" (sorted, unique).
  std::vector<std::string> transfers_used;
};

// `w` is the whole step's workload (training; batch = the global batch, split over dp ranks
// and micro-batches). Throws Error naming the value and what would work: gpus != dp x tp x pp,
// more GPUs than the system holds, tp not dividing the heads (valid ones listed), pp not
// dividing the layers, a batch that does not divide into dp x micro-batches, zero outside 0..3.
ParallelForecast forecast_parallel(const GpuSpec& gpu, const SystemSpec& system,
                                   const ModelConfig& model, const Workload& w,
                                   const ParallelConfig& config, Predictor predictor);

// The catalog system built from this GPU holding `gpus` (nullptr when none).
const SystemSpec* default_system_for(const GpuSpec& gpu, std::int64_t gpus);

// The system `gpus` GPUs of this kind run on when a request names none, for training, plans and
// serving alike: the catalog system built from the GPU when it holds them, else one node of them
// wired as the GPU's catalog links say (node_of_catalog_links, up to kMaxBuiltNodeGpus; e.g. 4 RTX
// 4090s over PCIe). nullopt when neither; no_system_for says why.
std::optional<SystemSpec> system_for_gpus(const GpuSpec& gpu, std::int64_t gpus);
// "no catalog system built from <GPU> holds N GPUs, ..." for the error a caller throws.
std::string no_system_for(const GpuSpec& gpu, std::int64_t gpus);

// ---- plan search (core/src/parallel/plan.cpp) ----
struct PlanRequest {
  std::int64_t global_batch = 0;
  std::int64_t seq = 0;
  int gpus = 0;  // 0: every power of two up to one node of the system
  int max_microbatches = 64;
  DataType dtype = DataType::fp32;
  Predictor predictor = Predictor::tilecast;
};
struct PlanEntry {
  ParallelConfig config;
  double step_ms = 0, tokens_per_s = 0, tokens_per_s_per_gpu = 0, bubble_fraction = 0;
  double memory_gb = 0, capacity_gb = 0;
};
struct PlanResult {
  std::vector<PlanEntry> by_step;            // fitting configurations, fastest step first
  std::vector<PlanEntry> by_tokens_per_gpu;  // the same, most tokens/s per GPU first
  int considered = 0;                        // configurations enumerated
  int does_not_divide = 0;  // dropped: heads by tp, layers by pp, batch by dp x micro-batches
  int does_not_fit = 0;     // dropped: memory per GPU over the GPU's
  std::vector<int> gpu_counts;
};
// Enumerates dp x tp x pp x micro-batches x ZeRO (0-3; 0 only when dp is 1) x recomputation
// (none, selective, full), 1F1B, drops what does not divide or fit, ranks the rest. Throws
// Error for a batch or seq that is not positive, or gpus the system cannot hold.
PlanResult plan_parallel(const GpuSpec& gpu, const SystemSpec& system, const ModelConfig& model,
                         const PlanRequest& request);

// One GPU's memory for a training step of `graph` (no parallelism; the rules of
// forecast_parallel's memory per GPU, Adam's states included). docs/parallel.md, "Memory".
TrainingMemory training_memory(const GpuSpec& gpu, const OpGraph& graph, DataType dtype,
                               MasterWeights master = MasterWeights::fp32);

// What memory near or over the GPU's capacity means for the forecast (none below 90%):
// PyTorch's caching allocator then frees and retries allocations, which no forecast models.
std::vector<std::string> memory_caveats(const TrainingMemory& m);

std::string parallel_forecast_to_json(const GpuSpec& gpu, const ModelConfig& model,
                                      const ParallelForecast& f);

}  // namespace tilecast
