// Mixtral, Qwen2-MoE and Qwen3-MoE (…ForCausalLM, eager attention): Llama's embeddings, attention
// (GQA, rotary; Qwen2-MoE with q/k/v biases, Qwen3-MoE with q and k normed per head) and head,
// with the feed-forward of each sparse layer a top-k mixture of SwiGLU experts (blocks/moe.cpp:
// uniform routing), Qwen2-MoE's plus a gated shared expert. The Qwen MoEs' dense layers
// (mlp_only_layers, decoder_sparse_step) keep a SwiGLU
// MLP of intermediate_size. DeepSeek-V3: multi-head latent attention (its row's latent_attention:
// blocks/attention.cpp), its first first_k_dense_replace layers dense, the rest with top-k experts
// plus its shared experts as one ungated MLP; its router (sigmoid scores, a correction bias, the
// top groups' experts) is listed as the others' softmax and top-k, and its scores' scaling by
// routed_scaling_factor as part of the weighted sum.
#include "graph/blocks/blocks.hpp"

namespace tilecast::detail {

void build_mixtral(const ModelConfig& m, GraphBuilder& g) {
  const std::int64_t B = g.batch(), S = g.query_len(), K = g.context_len(), H = m.hidden_size,
                     V = m.vocab_size;
  const std::int64_t R = GraphBuilder::mul(B, S);

  const AttentionSpec attn = rotary_attention(m);
  const MoeSpec experts = moe_spec(m);
  const MlpSpec dense = gated_mlp(m, m.intermediate_size);

  g.section("embeddings", 1);
  g.embedding("embed_tokens", R, V, H);
  const std::int64_t rd = rotary_features(m);  // hd but for DeepSeek-V3's rotary part
  g.mem("rotary cos/sin", Phase::forward, 4.0 * R * rd, rd, "rotary tables");

  const std::int64_t sparse = count_layers(m, is_moe_layer);
  for (const bool with_experts : {true, false}) {
    const std::int64_t count = with_experts ? sparse : m.num_layers - sparse;
    if (count == 0) continue;
    g.section(with_experts ? "decoder layer (experts)" : "decoder layer (dense)", count);
    prenorm_layer(g, m, attn, K, 0, [&] { sparse_or_dense(g, with_experts, experts, dense, R); });
  }

  g.section("head", 1);
  decoder_head(g, m);
}

}  // namespace tilecast::detail
