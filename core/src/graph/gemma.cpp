// Gemma, Gemma 2 and Gemma 3 (…ForCausalLM, eager attention). Gemma: Llama's layer with the
// embeddings scaled by sqrt(hidden), RMSNorm scaled by (1 + weight), a GeGLU MLP (tanh GELU,
// forecast as gelu) and the LM head tied to the embeddings. Gemma 2 adds a norm before and after
// the MLP and after the attention, scores scaled by query_pre_attn_scalar^-1/2 and soft-capped (cap
// * tanh(x / cap)), the logits soft-capped likewise, and sliding-window attention on the even
// layers: a decode step there attends to at most sliding_window cached keys (the hybrid cache keeps
// only the window); prefill and training compute the full scores under a mask. Gemma 3
// (gemma3_text) keeps Gemma 2's four norms, drops the soft-capping, norms q and k per head (q_norm,
// k_norm) and slides on five layers of six (sliding_window_pattern), whose rotary runs at its own
// base: a second cos/sin table each forward (Gemma3TextModel's rotary_emb_local).
#include "graph/blocks/blocks.hpp"

namespace tilecast::detail {

void build_gemma(const ModelConfig& m, GraphBuilder& g) {
  const std::int64_t B = g.batch(), S = g.query_len(), H = m.hidden_size, hd = m.head_dim,
                     V = m.vocab_size;
  const std::int64_t R = GraphBuilder::mul(B, S);
  const ArchitectureTraits& t = traits(m);
  const bool windows = t.sliding != Sliding::none;

  AttentionSpec attn = rotary_attention(m);
  if (t.softcapping) {
    attn.scaling = Scaling::scores_mulu;
    attn.softcap = m.attn_logit_softcap;
  }
  const MlpSpec mlp_spec = gated_mlp(m, m.intermediate_size);

  g.section("embeddings", 1);
  g.embedding("embed_tokens", R, V, H, false);
  if (t.scaled_embeddings) g.vec("embedding normalizer", Op::mulu, R, H, OpKind::elementwise);
  g.mem("rotary cos/sin", Phase::forward, 4.0 * R * hd, hd, "rotary tables");
  if (t.local_rotary)
    g.mem("rotary cos/sin (local)", Phase::forward, 4.0 * R * hd, hd, "rotary tables");

  // the sliding layers (is_sliding_layer): Gemma 2's even ones, Gemma 3's five of six
  const std::int64_t sliding = sliding_layer_count(m);
  for (const bool window : {true, false}) {
    const std::int64_t count = window ? sliding : m.num_layers - sliding;
    if (count == 0) continue;
    g.section(!windows ? "decoder layer"
              : window ? "decoder layer (sliding)"
                       : "decoder layer (global)",
              count);
    // a decode step on a sliding layer reads at most the window (HybridCache)
    const std::int64_t keys = attended_keys(m, g, window);
    norm(g, t.norm, "input_layernorm", R, H);
    // sandwich norms: the output's residual add comes after the post-attention norm: attention()
    // adds it, the norm is listed after (same kernels, order within the layer only)
    attention(g, attn, B, S, keys);
    norm(g, t.norm, "post_attention_layernorm", R, H);
    if (t.sandwich_norms) norm(g, t.norm, "pre_feedforward_layernorm", R, H);
    mlp(g, mlp_spec, R);
    if (t.sandwich_norms) norm(g, t.norm, "post_feedforward_layernorm", R, H);
    residual(g, 0, R, H);
  }

  g.section("head", 1);
  norm(g, t.norm, "norm", R, H);
  g.linear("lm_head", R, H, V, {.tied = m.tie_word_embeddings});
  if (m.final_logit_softcap > 0) {
    g.vec("final softcap", Op::divu, R, V, OpKind::elementwise);
    g.vec("final softcap", Op::tanh, R, V, OpKind::elementwise);
    g.vec("final softcap", Op::mulu, R, V, OpKind::elementwise);
  }
}

}  // namespace tilecast::detail
