// Serving memory per GPU as an affine function of batch and context, so the largest batch
// and context that fit are solved for, not searched (docs/serving.md, "Memory").
#pragma once

#include <cstdint>

#include "tilecast/error.hpp"
#include "tilecast/gpu_spec.hpp"
#include "tilecast/model_config.hpp"
#include "tilecast/op_graph.hpp"
#include "tilecast/serving.hpp"

namespace tilecast::detail {

// A serving setup whose memory leaves no room for its KV cache (or for its longest request's):
// an Error of its own type, so a search over layouts (tilecast/capacity.hpp) can tell "more GPUs
// per replica would hold it" apart from other failures.
class DoesNotFit : public Error {
 public:
  using Error::Error;
};

// The most GPUs a request that does not fit is searched for a tensor parallelism that holds it
// (a pass's tp_to_fit, a static serve's does-not-fit caveat): powers of two up to this.
inline constexpr int kMaxTpToFit = 64;

// The least power-of-two tensor parallelism from `from` up to kMaxTpToFit at which `fits(tp)`;
// 0 when none. A tp `fits` refuses with an Error (it does not divide the heads) is skipped: the
// next power of two may divide them.
template <class Fits>
int least_tp_to_fit(int from, Fits&& fits) {
  for (int tp = from; tp <= kMaxTpToFit; tp *= 2) {
    try {
      if (fits(tp)) return tp;
    } catch (const Error&) {
    }
  }
  return 0;
}

// The CUDA context and framework: a stated estimate, not a measurement (docs/serving.md).
inline constexpr double kContextGb = 1.0;

struct MemoryModel {
  double weights_bytes = 0;       // per GPU
  double kv_bytes_per_token = 0;  // per sequence, per GPU: the layers caching every token
  // Sliding-window layers (Gemma 2) cache at most kv_window tokens: their bytes per token
  double kv_window_bytes_per_token = 0;
  std::int64_t kv_window = 0;
  std::int64_t layers = 0, window_layers = 0;  // the model's, and of them the sliding ones
  double activation_bytes_per_seq = 0;         // the prefill's live activations for one prompt
  double context_bytes = kContextGb * 1e9;
  double capacity_bytes = 0;

  ServingMemory at(std::int64_t batch, std::int64_t tokens) const;
  // The KV cache of one sequence at `tokens` tokens.
  double kv_seq_bytes(std::int64_t tokens) const;
  // The largest batch at `tokens` per sequence (0 when even one does not fit).
  std::int64_t max_batch(std::int64_t tokens) const;
  // The largest tokens per sequence at `batch` (0 when none fit).
  std::int64_t max_context(std::int64_t batch) const;
};

// `params`: the whole model's parameter count, `quantized_params` of them the quantized
// linears' (quantized_param_count; used only when the request quantizes); `shard`: one GPU's
// share (shard_model).
MemoryModel serving_memory_model(const GpuSpec& gpu, const ModelConfig& shard, double params,
                                 double quantized_params, const ServingRequest& r);

}  // namespace tilecast::detail

namespace tilecast::detail {

// Memory of a single-GPU forecast_model pass (inference, prefill or decode; docs/model-forecast.md
// "Memory"): the serving rules above at the pass's shape, the largest batch that fits and the
// smallest tensor-parallel GPU count whose share fits.
struct PassMemory {
  ServingMemory memory;
  std::int64_t max_batch = 0;  // at the pass's tokens per sequence; 0 when one does not fit
  int tp_to_fit = 0;           // 1, 2, 4, ... 64 dividing the heads; 0 when none fits
};
PassMemory pass_memory(const GpuSpec& gpu, const ModelConfig& model, const Workload& w,
                       Engine engine);

}  // namespace tilecast::detail
