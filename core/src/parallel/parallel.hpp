// The pieces of the parallel training forecast (docs/parallel.md), one concern a file: tensor
// parallelism (tp.cpp), data parallelism's gradient buckets (dp.cpp), pipeline stages and
// schedules (pp.cpp), ZeRO's model states (zero.cpp), recomputation (recompute.cpp), memory per
// GPU (memory.cpp), the collectives of each group (groups.cpp) and one micro-batch's replay and
// the whole step (step.cpp).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "forecast/kernel_times.hpp"
#include "tilecast/comm.hpp"
#include "tilecast/parallel.hpp"

namespace tilecast::detail {

// ---- tp.cpp ----
// One GPU's share of the model under Megatron tensor parallelism (heads, key/value heads,
// intermediate and vocabulary widths / tp). Throws Error when tp does not divide the heads,
// listing the tps that would.
ModelConfig shard_model(const ModelConfig& model, int tp);
std::vector<int> valid_tps(const ModelConfig& model);
// Elements a forward op's tensor-parallel all-reduce carries in forward and in backward.
struct TpTraffic {
  double forward_elements = 0, backward_elements = 0;
};
TpTraffic tp_traffic(const GraphOp& op);

// ---- groups.cpp ----
// tp, dp, pp: every engine. The megatron engine adds context parallelism (cp), expert
// parallelism (ep, carved out of dp), the dense gradients' dp x cp group and the experts'
// data-parallel group dp / ep (edp).
enum class Group { tp, dp, pp, cp, ep, dp_cp, edp };
// Megatron-Core's extra dimensions (rank order tp, cp, ep, dp, pp) and its collectives' latency.
struct GroupExtras {
  int cp = 1, ep = 1;
  bool hierarchical = false;  // NCCL's hierarchical latency across nodes (tilecast/comm.hpp)
};
// The collectives of each process group on the system (Megatron's rank order: tp innermost,
// then cp, then dp (ep its innermost part), then pp), through the comm model (tilecast/comm.hpp).
class Collectives {
 public:
  // `calibration`: the comm model's curves (nullptr: the embedded default); it must outlive this.
  Collectives(const SystemSpec& system, const ParallelConfig& c,
              const CommCalibration* calibration = nullptr, GroupExtras extras = {});
  // 0 for a group of one GPU.
  double ms(Collective what, Group group, double bytes) const;
  std::string describe(Collective what, Group group, double bytes) const;
  int size(Group group) const;

 private:
  CollectiveRequest request(Collective what, Group group, double bytes) const;
  const SystemSpec& system_;
  ParallelConfig c_;
  const CommCalibration* calibration_;
  GroupExtras x_;
};

// ---- pp.cpp ----
// Which sections (and how many of their repeats) each stage runs: the layers split evenly,
// embeddings with the first layer after them (stage 0 before any), the rest with the layer
// before. Throws Error when pp does not divide the layers, listing the pps that would.
std::vector<OpGraph> split_stages(const OpGraph& graph, int pp, const std::string& model_name);
bool is_layer_section(const GraphSection& s);
std::int64_t layer_count(const OpGraph& graph);

// ---- recompute.cpp ----
// Per op of a stage graph: re-run its forward before the backward (recomputation); the
// graph's saved bytes are rewritten to what is kept under the mode.
struct RecomputePlan {
  std::vector<std::vector<char>> rerun;  // [section][op]
};
RecomputePlan apply_recompute(OpGraph& stage, Recompute mode);

// ---- dp.cpp ----
// A gradient bucket: all-reduced (or reduce-scattered) once its last gradient is ready.
struct Bucket {
  double ready_ms = 0;  // from the start of the micro-batch's backward
  double bytes = 0;
};
// DDP's bucketing: gradients in the order backward produces them; the first bucket is capped
// at 1 MiB (torch.distributed's _DEFAULT_FIRST_BUCKET_BYTES), the others at bucket_mb.
class BucketFiller {
 public:
  // `accumulated_bytes` may exceed `total_bytes`: a tied weight is accumulated twice, and
  // DDP reduces it when its last gradient lands, so the first excess bytes are skipped.
  BucketFiller(double bucket_mb, double total_bytes, double accumulated_bytes);
  void add(double bytes, double ready_ms);
  std::vector<Bucket> finish();

 private:
  double cap_bytes_, first_cap_bytes_, skip_bytes_, open_ = 0, last_ready_ = 0;
  std::vector<Bucket> buckets_;
};

// ---- step.cpp ----
// A layout's count (dp, tp, pp, micro-batches, ...): throws Error naming it unless 1 to 65536.
void require_layout_count(long long value, const char* name);
struct MicrobatchReplay;
// The stages' micro-batch replays of one model, by what they depend on (tp, pp, micro-batch
// size, seq, recomputation, ZeRO-3's dp, bucket size): configurations differing only in dp or
// the ZeRO stage share them (the plan search).
using ReplayKey = std::tuple<int, int, std::int64_t, std::int64_t, int, int, double, int>;
using ReplayMemo = std::map<ReplayKey, std::vector<MicrobatchReplay>>;
ParallelForecast forecast_parallel_with(const GpuSpec& gpu, const SystemSpec& system,
                                        const ModelConfig& model, const Workload& w,
                                        const ParallelConfig& c, KernelTimes& times,
                                        ReplayMemo* memo = nullptr);

// Steps the pipeline schedule takes: a forward and a backward chunk per micro-batch per stage
// (the work budget, forecast/work_budget.hpp).
double schedule_steps(const ParallelConfig& c);
// The first `limit` divisors of n, ascending (for the errors naming valid dp or micro-batch
// counts): O(sqrt n), so a batch of 2^31 answers at once.
std::string divisors_of(std::int64_t n, std::size_t limit = 64);
// Throws unless the global batch divides over dp data-parallel groups (`group`: "rank" or
// "replica", as the engine names them) and each group's share into `microbatches`; the errors
// list the valid counts.
void require_batch_split(std::int64_t batch, int dp, int microbatches, const char* group);

// One micro-batch on one stage:
struct MicrobatchReplay {
  double forward_ms = 0, backward_ms = 0;  // wall time (exposed waits included)
  double forward_exposed_ms = 0, backward_exposed_ms = 0;
  double comm_busy_ms = 0;  // tensor-parallel and ZeRO-3 collectives
  double recompute_ms = 0;
  std::array<double, kOpKindCount> breakdown_ms{};  // compute charges by kind
  std::vector<Bucket> buckets;                      // for the data-parallel gradient reduction
  double saved_bytes = 0;  // kept for backward after recomputation, in the bytes the graph records
  double largest_output_bytes = 0;
  double params = 0;            // this stage's (tp-sharded) parameters
  double layer_params_max = 0;  // the largest section instance's (ZeRO-3 gathers)
  // Of `params`, the frozen base weights of LoRA / QLoRA (no gradients or optimizer states) and
  // the bytes they are stored in (GraphOp::frozen_bytes_per_param); 0 in full training.
  double frozen_params = 0, frozen_weight_bytes = 0;
  // ZeRO-3's parameter all-gathers of this micro-batch (forward and backward)
  std::int64_t gathers = 0;
  double gathered_bytes = 0, gather_busy_ms = 0, largest_gather_bytes = 0;
  // The backward's gathers on the dp group: when each was issued and when it finished, ms from
  // the start of the backward. The gradient reduce-scatters share the dp group's NCCL stream,
  // so a bucket ready after a gather was issued queues behind it (pp.cpp).
  struct Span {
    double issued_ms = 0, finish_ms = 0;
  };
  std::vector<Span> backward_gathers;
};

// ---- pp.cpp: the schedule ----
struct StageTimes {
  MicrobatchReplay mb;
  double send_ms = 0;  // this stage's activations to the next (and gradients back)
  double grad_reduce_ms_per_byte = 0;
  std::vector<double> bucket_ms;  // each bucket's collective
  double after_step_ms = 0;       // ZeRO 1/2: the updated parameters' all-gather
};
// Runs the schedule over m micro-batches; fills each stage's streams; returns the step time.
// The streams keep the spans of the first and last spans_kept_per_end(pp) micro-batches (all of
// them for up to about kMaxStreamSpans spans in all) and count every span run, so the output is
// sized by the summary, not by pp x micro-batches.
constexpr int kMaxStreamSpans = 4096;
int spans_kept_per_end(int pp);
double run_schedule(const std::vector<StageTimes>& stages, int m, PipelineSchedule schedule,
                    std::vector<StageStreams>& out);

// ---- parallel_json.cpp ----
// The opening fields every multi-GPU training response shares (version, gpu, model, mode,
// batch, seq, precision, predictor, footing), in that order; `roofline_fallbacks`: the ops the
// replay forecast by the roofline, `transfers_used` the kernels a transfer forecast
// (tilecast/footing.hpp).
nlohmann::ordered_json training_response_head(const GpuSpec& gpu, const ModelConfig& model,
                                              const Workload& w, Predictor predictor,
                                              const std::vector<std::string>& roofline_fallbacks,
                                              const std::vector<std::string>& transfers_used);

// ---- memory.cpp ----
// {"stage","weights_gb",...,"total_gb","capacity_gb","fits"}: forecast JSON's "memory".
nlohmann::ordered_json memory_json(const TrainingMemory& m);
// Adds a graph's parameters, largest layer, bytes kept for backward and largest forward output
// to `r` (the memory inputs of stage_memory).
void tally_memory_inputs(const OpGraph& g, MicrobatchReplay& r);
TrainingMemory stage_memory(const GpuSpec& gpu, const MicrobatchReplay& mb, const ParallelConfig& c,
                            int stage, DataType dtype, MasterWeights master = MasterWeights::fp32);

}  // namespace tilecast::detail
