// An engine's own batch limits when a request gives none: vLLM's defaults for the GPU, and
// trtllm-bench throughput's own max_batch_size and max_num_tokens (the requests its KV-cache
// estimate holds at the mean prompt + output, capped and rounded up, and their tokens per step,
// rounded up); both read from core/data/engines/serving.json with the sources they follow.
#pragma once

#include <cstdint>

#include "serve/quantize.hpp"
#include "tilecast/gpu_spec.hpp"
#include "tilecast/model_config.hpp"

namespace tilecast::detail {

// vLLM's max_num_seqs and max_num_batched_tokens for its server on this GPU
// ("vllm_batch_defaults").
struct VllmBatchDefaults {
  std::int64_t max_seqs = 0, max_batch_tokens = 0;
};
VllmBatchDefaults vllm_batch_defaults(const GpuSpec& gpu);

struct TrtllmBenchLimits {
  std::int64_t max_batch_size = 0;  // the step's sequences (tilecast max_seqs)
  std::int64_t max_num_tokens = 0;  // the step's tokens (tilecast max_batch_tokens)
  double kv_requests = 0;           // the requests its KV-cache estimate holds (before the cap)
};

// `params`: the whole model's parameters, `quantized_params` those its weight format packs
// (quantized_param_count; 0 unquantized); `types`: the serving precision (the GEMM type gives
// the bytes per weight, the KV type the bytes per cached element); the mean prompt and output
// lengths and the longest prompt of the requests. Throws Error where trtllm-bench has no
// heuristic (weight-only quantization) or the model leaves no memory for the cache.
TrtllmBenchLimits trtllm_bench_limits(const GpuSpec& gpu, const ModelConfig& model, int tp,
                                      const ServingTypes& types, double params,
                                      double quantized_params, double mean_prompt,
                                      double mean_output, std::int64_t longest_prompt);

}  // namespace tilecast::detail
