// Serving memory rules (docs/serving.md):
//   weights      parameters x bytes(dtype) / tp; quantized linears (serve/quantize.hpp) at their
//                width (FP8 1 byte, INT8 1, INT4 packed with its group scales), the rest BF16
//   KV cache     2 x layers x kv heads per GPU x head_dim x bytes(the cache's type) per token and
//                sequence;
//                a sliding-window layer (Gemma 2) caches at most its window
//   activations  the prefill's live tensors, per prompt token: the residual stream and its
//                normed copy (2 hidden), one layer's QKV output, the MLP's input projection
//                output (gate and up: 2 x inner) and activation output (inner), at bytes(dtype);
//                per sequence the FP32 logits of the last position. Eager adds the attention
//                scores and FP32 probabilities (heads x prompt^2 x (bytes + 4)) and FP32 logits
//                of every prompt position (prompt x vocab x 4), as Hugging Face's eager forward
//                keeps them.
//   capacity     the memory the driver reports (device_memory_bytes)
//   context      kContextGb
#include "serve/memory.hpp"

#include <algorithm>
#include <cmath>

#include "common/checked.hpp"
#include "model/architectures.hpp"
#include "serve/quantize.hpp"

namespace tilecast::detail {

double MemoryModel::kv_seq_bytes(std::int64_t tokens) const {
  return kv_bytes_per_token * double(tokens) +
         kv_window_bytes_per_token * double(std::min(tokens, kv_window));
}

ServingMemory MemoryModel::at(std::int64_t batch, std::int64_t tokens) const {
  ServingMemory m;
  m.weights_gb = weights_bytes / 1e9;
  m.kv_cache_gb = kv_seq_bytes(tokens) * double(batch) / 1e9;
  m.activations_gb = activation_bytes_per_seq * double(batch) / 1e9;
  m.context_gb = context_bytes / 1e9;
  m.total_gb = m.weights_gb + m.kv_cache_gb + m.activations_gb + m.context_gb;
  m.capacity_gb = capacity_bytes / 1e9;
  m.fits = m.total_gb <= m.capacity_gb;
  return m;
}

std::int64_t MemoryModel::max_batch(std::int64_t tokens) const {
  const double free_bytes = capacity_bytes - weights_bytes - context_bytes;
  const double per_seq = kv_seq_bytes(tokens) + activation_bytes_per_seq;
  if (free_bytes <= 0 || per_seq <= 0) return 0;
  return count_of(free_bytes / per_seq, 1e15);
}

std::int64_t MemoryModel::max_context(std::int64_t batch) const {
  const double free_bytes =
      capacity_bytes - weights_bytes - context_bytes - activation_bytes_per_seq * double(batch);
  if (free_bytes <= 0) return 0;
  if (kv_window_bytes_per_token > 0) {  // within the window every layer grows, past it the rest
    const double within = (kv_bytes_per_token + kv_window_bytes_per_token) * double(batch);
    if (free_bytes < within * double(kv_window)) return count_of(free_bytes / within, 1e15);
    const double rest = free_bytes - within * double(kv_window);
    const double per_token = kv_bytes_per_token * double(batch);
    if (per_token <= 0) return std::int64_t(1e15);
    return count_of(double(kv_window) + std::floor(rest / per_token), 1e15);
  }
  const double per_token = kv_bytes_per_token * double(batch);
  if (per_token <= 0) return 0;
  return count_of(free_bytes / per_token, 1e15);
}

MemoryModel serving_memory_model(const GpuSpec& gpu, const ModelConfig& s, double params,
                                 double quantized_params, const ServingRequest& r) {
  const ServingTypes t = serving_types(gpu, r);
  const double b = dtype_bytes(t.act);
  const double H = double(s.hidden_size), F = double(s.intermediate_size),
               qkv = double(s.num_heads + 2 * s.num_kv_heads) * double(s.head_dim),
               P = double(r.prompt);
  const bool gated = traits(s).ffn == Ffn::gated;
  MemoryModel m;
  m.weights_bytes =
      t.quantized()
          ? ((params - quantized_params) * b + quantized_params * t.weight_bytes) / double(r.tp)
          : params * b / double(r.tp);
  m.kv_bytes_per_token = kv_cache_bytes_per_token(s, t.kv);
  const std::int64_t sliding = sliding_layer_count(s);
  m.layers = s.num_layers;
  if (sliding > 0) {
    m.window_layers = sliding;
    const double per_layer = m.kv_bytes_per_token / double(s.num_layers);
    m.kv_window_bytes_per_token = per_layer * double(sliding);
    m.kv_bytes_per_token = per_layer * double(s.num_layers - sliding);
    m.kv_window = s.sliding_window;
  }
  m.activation_bytes_per_seq =
      P * (2 * H + qkv + (gated ? 3 : 2) * F) * b + double(s.vocab_size) * 4;
  if (r.engine != Engine::fused)  // eager and compiled materialise the scores
    m.activation_bytes_per_seq +=
        double(s.num_heads) * P * P * (b + 4) + P * double(s.vocab_size) * 4;
  m.capacity_bytes = device_memory_bytes(gpu);
  return m;
}

}  // namespace tilecast::detail
