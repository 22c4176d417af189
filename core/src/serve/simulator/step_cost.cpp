// Mixed-batch step times (header). The layers' graph is the fused engine's decode graph at one
// token per sequence and `tokens` sequences: every GEMM and token-row kernel then has `tokens`
// rows, as in a prefill of that many tokens; its attention op and head are replaced by the
// step's own.
#include "serve/simulator/step_cost.hpp"

#include <algorithm>
#include <bit>

#include "parallel/parallel.hpp"
#include "serve/decode_attention.hpp"
#include "serve/expert_parallel.hpp"
#include "serve/fixed_costs.hpp"
#include "tilecast/error.hpp"

namespace tilecast::detail {

void AttentionLoad::add(std::int64_t cached, std::int64_t query, std::int64_t window) {
  const double c = double(cached), q = double(query), w = double(window);
  tokens += q;
  // a decode token reads its cache and itself; a chunk computes its rows against the cache and
  // the causal half of its own square (a whole prompt: S^2 / 2, as the fused engine's prefill)
  const bool decode = query == 1 && cached > 0;
  const double p = decode ? c + 1 : q * c + q * q / 2;
  pairs += p;
  keys += c + q;
  key_pairs += p * (c + q);
  if (decode) decode_keys += c + q;
  if (window > 0) {
    window_pairs += std::min(p, q * w);
    window_keys += std::min(c + q, w);
    if (decode) window_decode_keys += std::min(c + q, w);
  }
}

AttentionLoad AttentionLoad::decodes(std::int64_t seqs, std::int64_t cached_sum,
                                     std::int64_t cached_squares, std::int64_t steps,
                                     double window_keys) {
  // add()'s decode: c + 1 pairs and keys, (c + 1)^2 key pairs, at c = cached_i + steps
  const std::int64_t k1 = steps + 1, keys = cached_sum + seqs * k1;
  AttentionLoad a;
  a.tokens = double(seqs);
  a.pairs = a.keys = a.decode_keys = double(keys);
  a.key_pairs = double(cached_squares + 2 * k1 * cached_sum + seqs * k1 * k1);
  a.window_pairs = a.window_keys = a.window_decode_keys = window_keys;
  return a;
}

StepCost::StepCost(const GpuSpec& gpu, const ModelConfig& model, const ServingRequest& r)
    : gpu_(gpu),
      shard_(shard_model(expert_shard(model, r.ep, r.tp), r.tp)),
      r_(r),
      types_(serving_types(gpu, r)),
      layers_(double(model.num_layers)),
      hidden_(double(model.hidden_size)),
      vocab_(model.vocab_size),
      clock_(gpu, r.predictor, Engine::fused),
      attention_(gpu, types_.act, r.predictor, clock_.stream_bw_gbps()),
      all_reduce_(gpu, r.tp),
      all_to_all_(gpu, r.ep, Collective::kAllToAll) {
  if (r.ep > 1) moe_layers_ = double(moe_layer_count(model));
  sliding_layers_ = sliding_layer_count(model);
  global_layers_ = model.num_layers - sliding_layers_;
  if (sliding_layers_ > 0) window_ = model.sliding_window;
}

std::string StepCost::comm_model() const {
  const std::string& a = all_reduce_.description();
  const std::string& b = all_to_all_.description();
  return a.empty() ? b : b.empty() ? a : a + "; " + b;
}

std::int64_t StepCost::grid_floor(std::int64_t t) {
  if (t <= 128) return t;
  const int k = std::bit_width(std::uint64_t(t)) - 1;  // 2^k <= t < 2^(k+1)
  const std::int64_t step = std::int64_t{1} << (k - 4);
  return t / step * step;
}

std::int64_t StepCost::grid_next(std::int64_t point) {
  if (point < 128) return point + 1;
  const int k = std::bit_width(std::uint64_t(point)) - 1;
  return point + (std::int64_t{1} << (k - 4));
}

double StepCost::layers_ms(std::int64_t tokens) {
  auto it = layers_ms_.find(tokens);
  if (it != layers_ms_.end()) return it->second;
  OpGraph g =
      serving_graph(gpu_, shard_, make_workload(Mode::decode, tokens, 1, 1), Engine::fused, types_);
  int attention_ops = 0;
  std::erase_if(g.sections, [](const GraphSection& s) { return s.name == "head"; });
  for (auto& s : g.sections)
    attention_ops += int(std::erase_if(s.ops, [](const GraphOp& o) { return o.fused_bytes > 0; }));
  if (attention_ops == 0) throw Error("internal: the fused engine's graph has no attention op");
  // two all-reduces of the step's hidden states per layer; under expert parallelism two
  // all-to-alls per MoE layer, the tokens to their experts' GPUs and back
  const double comm =
      2 * layers_ * all_reduce_.ms(double(tokens) * hidden_ * dtype_bytes(types_.act)) +
      2 * moe_layers_ * all_to_all_.ms(dispatch_bytes(shard_, tokens, types_.act));
  return layers_ms_.emplace(tokens, clock_.forward_ms(g) + comm).first->second;
}

double StepCost::head_ms(std::int64_t seqs) {
  auto it = head_ms_.find(seqs);
  if (it != head_ms_.end()) return it->second;
  OpGraph g =
      serving_graph(gpu_, shard_, make_workload(Mode::decode, seqs, 1, 1), Engine::fused, types_);
  std::erase_if(g.sections, [](const GraphSection& s) { return s.name != "head"; });
  if (g.sections.size() != 1) throw Error("internal: the fused engine's graph has no head");
  return head_ms_.emplace(seqs, clock_.forward_ms(g)).first->second;
}

// The fused engine's attention (graph/engines/fused.cpp) over the step's sequences: QK^T and PV
// FLOPs of every pair, Q read and the output written for every token, K and V read (a decoding
// sequence's as often as the decode kernel reads them: serve/decode_attention.hpp), at the keys
// per query of the pairs (forecast/kernel_times.hpp, FusedAttention).
double StepCost::attention_ms(const AttentionLoad& a) const {
  const double hd = double(shard_.head_dim), q_width = double(shard_.num_heads) * hd,
               kv_width = double(shard_.num_kv_heads) * hd, b = dtype_bytes(types_.act),
               kv_ratio = dtype_bytes(types_.kv) / b,  // 1 but for an FP8 cache
      extra_reads = decode_kv_reads(types_.decode_attention, shard_) - 1;
  const double keys_per_query = a.pairs > 0 ? a.key_pairs / a.pairs : 0;
  if (shard_.kv_lora_rank > 0) return latent_attention_ms(a, keys_per_query);
  auto one = [&](double pairs, double keys, double decode_keys, double per_query) {
    const double read = keys + extra_reads * decode_keys;
    return attention_.ms(4 * pairs * double(shard_.num_heads) * hd,
                         (2 * a.tokens * q_width + 2 * read * kv_width * kv_ratio) * b, per_query);
  };
  double ms = double(global_layers_) * one(a.pairs, a.keys, a.decode_keys, keys_per_query);
  if (sliding_layers_ > 0)
    ms += double(sliding_layers_) * one(a.window_pairs, a.window_keys, a.window_decode_keys,
                                        std::min(keys_per_query, double(window_)));
  return ms;
}

// Latent attention (graph/engines/fused.cpp, latent_attention): a decoding sequence's pairs over
// the latent cache, read once for every head (each head's q and k latent + rope wide, its output
// the latent); a prefill's pairs as multi-head attention over the keys it reads, their latent
// up-projected first (kv_b_proj's FLOPs counted with the attention's, its output read back).
double StepCost::latent_attention_ms(const AttentionLoad& a, double keys_per_query) const {
  const double heads = double(shard_.num_heads), hd = double(shard_.head_dim),
               vd = double(shard_.v_head_dim), kvl = double(shard_.kv_lora_rank),
               lat = kvl + double(shard_.qk_rope_head_dim), b = dtype_bytes(types_.act),
               kv_ratio = dtype_bytes(types_.kv) / b;
  const double decode_pairs = std::min(a.pairs, a.decode_keys),
               prefill_pairs = a.pairs - decode_pairs,
               prefill_keys = std::max(0.0, a.keys - a.decode_keys);
  const double flops = 2 * heads * (decode_pairs * (lat + kvl) + prefill_pairs * (hd + vd)) +
                       2 * prefill_keys * kvl * heads * (hd - lat + kvl + vd);
  const double bytes = (a.tokens * heads * (hd + vd) + a.keys * lat * kv_ratio +
                        2 * prefill_keys * heads * (hd + vd)) *
                       b;
  return layers_ * attention_.ms(flops, bytes, keys_per_query);
}

double StepCost::step_ms(std::int64_t tokens, std::int64_t seqs, const AttentionLoad& attention) {
  const std::int64_t lo = grid_floor(tokens);
  double layers = layers_ms(lo);
  if (lo != tokens) {
    const std::int64_t hi = grid_next(lo);
    layers += (layers_ms(hi) - layers) * double(tokens - lo) / double(hi - lo);
  }
  return multiple_ * (layers + head_ms(seqs) + attention_ms(attention) +
                      sampling_step_ms(gpu_, clock_.stream_bw_gbps(), seqs, vocab_));
}

}  // namespace tilecast::detail
