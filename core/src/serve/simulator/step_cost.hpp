// One engine step's time for a mixed batch (prefill chunks and decode tokens together, as vLLM v1
// runs them) from the fused engine's kernel forecasts: the layers' token-row kernels and GEMMs at
// the step's token count (forecast once per count on a grid, linear between), the logits of each
// sequence, the attention of every sequence summed into one kernel per layer (as the fused
// engine forecasts its attention kernel: forecast/kernel_times.hpp), the tensor-parallel
// all-reduces, expert parallelism's all-to-alls (serve/expert_parallel.hpp: one GPU's step, its
// own tokens) and the sampler's pass over the logits (serve/fixed_costs.hpp).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "serve/quantize.hpp"
#include "serve/step.hpp"
#include "serve/tensor_parallel.hpp"
#include "tilecast/model_config.hpp"
#include "tilecast/serving.hpp"

namespace tilecast::detail {

// What one step's attention reads and computes, summed over its sequences.
struct AttentionLoad {
  double tokens = 0;        // query tokens
  double pairs = 0;         // query-key pairs (a chunk's causal half counted as computed)
  double keys = 0;          // keys read (each sequence's cache + new tokens)
  double decode_keys = 0;   // of keys, those decoding sequences read (one new token each)
  double key_pairs = 0;     // pairs x each sequence's keys: their ratio, FlashAttention's keys
  double window_pairs = 0;  // the same at a sliding window (Gemma 2's sliding layers)
  double window_keys = 0;
  double window_decode_keys = 0;
  // A sequence computing `query` new tokens after `cached` ones.
  void add(std::int64_t cached, std::int64_t query, std::int64_t window);
  // What add(cached_i + steps, 1, window) sums to over `seqs` decoding sequences whose caches sum
  // to `cached_sum` (their squares to `cached_squares`): each reads its cache, `steps` tokens it
  // decoded since and its new one. Exact while the sums stay below 2^52 (the decode stretches
  // keep them so). `window_keys`: what each reads of its window, summed (the caller's, who
  // follows the caches across the window).
  static AttentionLoad decodes(std::int64_t seqs, std::int64_t cached_sum,
                               std::int64_t cached_squares, std::int64_t steps, double window_keys);
};

class StepCost {
 public:
  StepCost(const GpuSpec& gpu, const ModelConfig& model, const ServingRequest& r);
  // The step's time: `seqs` sequences, `tokens` new tokens in all, their attention; times the
  // multiple below.
  double step_ms(std::int64_t tokens, std::int64_t seqs, const AttentionLoad& attention);
  // Every step's time times `m` (1 by default): the simulation's 80% band re-runs the requests
  // at the whole-model band's multiples (serve/simulator/simulate.cpp). The forecasts per shape
  // are kept, so a second run costs only the engine's own work.
  void set_time_multiple(double m) { multiple_ = m; }
  // The grid point at or below `tokens`: every count to 128, then 16 per octave.
  static std::int64_t grid_floor(std::int64_t tokens);
  static std::int64_t grid_next(std::int64_t point);
  std::int64_t shapes() const { return std::int64_t(layers_ms_.size()); }
  const std::set<std::string>& roofline_fallbacks() const { return clock_.roofline_fallbacks(); }
  std::vector<std::string> transfers_used() const { return clock_.transfers_used(); }
  // how the step's collectives were forecast (empty on one GPU)
  std::string comm_model() const;
  std::int64_t window() const { return window_; }

 private:
  double layers_ms(std::int64_t tokens);  // at a grid point: everything but attention and head
  double head_ms(std::int64_t seqs);
  double attention_ms(const AttentionLoad& a) const;
  double latent_attention_ms(const AttentionLoad& a, double keys_per_query) const;

  const GpuSpec& gpu_;
  ModelConfig shard_;
  ServingRequest r_;
  ServingTypes types_;
  double layers_ = 0, hidden_ = 0;
  std::int64_t vocab_ = 0;
  std::int64_t window_ = 0;
  std::int64_t sliding_layers_ = 0, global_layers_ = 0;
  StepClock clock_;
  FusedAttention attention_;
  NodeCollective all_reduce_, all_to_all_;
  double moe_layers_ = 0;  // expert parallelism's: two all-to-alls each
  std::map<std::int64_t, double> layers_ms_, head_ms_;
  double multiple_ = 1;
};

}  // namespace tilecast::detail
