// The Megatron engine's pieces shared by its step (megatron_step.cpp), its memory
// (activation_memory.cpp) and its JSON (megatron_json.cpp).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "forecast/kernel_times.hpp"
#include "graph/engines/megatron_layer.hpp"
#include "tilecast/megatron.hpp"

namespace tilecast::detail {

// Layers of each pipeline rank when L layers split over pp x v model chunks as evenly as they
// go (the first L mod (pp x v) chunks in model order take one more): a pp that does not divide
// the layers is accepted, as in Megatron-Core's uneven splits and DeepSpeed.
std::vector<int> layers_per_rank(std::int64_t layers, int pp, int v);

// Activation bytes one micro-batch keeps for backward in one transformer layer on one rank,
// Korthikanti et al. (2022) section 4, generalised to grouped-query attention, gated MLPs and
// models without dropout (docs/megatron.md, "Memory"):
//   no recompute  sbh (10 + 24/t + 5as/(ht))   (MHA, 4h MLP, dropout; as/h terms only with the
//                 fused-softmax attention)
//   SP            sbh/t (34 + 5as/h)
//   selective     the 5as/h term dropped
//   full          2sbh (the layer's input; /t with SP)
// all / cp with context parallelism (s / cp tokens of each sequence on the rank); a mixture-of-
// experts MLP keeps top_k copies of each token's expert activations and the permuted inputs.
double layer_activation_bytes(const MegatronShape& m, const MegatronDims& d, Recompute r);

struct RankMemoryInputs {
  int rank = 0;
  int layers = 0;
  double params = 0;         // this rank's (tp-sharded) parameters
  double expert_params = 0;  // of which experts' (optimizer sharded over dp / ep)
  double grad_bytes = 4;     // per parameter: FP32 main gradients (FP16 training: 2)
  double fp8_params = 0;     // of them, FP8 GEMMs' weights: an FP8 copy and its transpose each
  bool first = false, last = false;
};
TrainingMemory megatron_rank_memory(const GpuSpec& gpu, const MegatronShape& m,
                                    const MegatronDims& d, const MegatronConfig& c,
                                    const RankMemoryInputs& in);

// Model FLOPs of one sequence's forward pass (Korthikanti eq. 7's convention: every attention
// score counted, causal or not), per layer and for the logits (mfu.cpp).
struct FlopsPerSequence {
  double layer = 0, logits = 0, attention_core = 0;
};
FlopsPerSequence model_flops(const MegatronShape& m, double s);
// A training step's model FLOPs: 3 x batch x (layers x layer + logits) (tilecast/mfu.hpp).
double step_model_flops(const MegatronShape& m, std::int64_t batch, std::int64_t seq);

// forecast_megatron over a kernel cache the caller keeps (the plan search shares one);
// `explain`: write the assumptions (their text costs more than the forecast).
MegatronForecast forecast_megatron_cached(const GpuSpec& gpu, const SystemSpec& system,
                                          const ModelConfig& model, const Workload& w,
                                          const MegatronConfig& c, KernelTimes& times,
                                          bool explain);

}  // namespace tilecast::detail
