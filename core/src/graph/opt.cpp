// OPT (OPTForCausalLM): learned positions offset by 2 (computed from a cumsum of
// the mask), pre-norm decoder layers, q scaled by a constant, K/V/Q made
// contiguous per head, scores clamped with torch.max against the dtype minimum
// (an element-wise kernel whose backward costs five), ReLU MLP, optional
// projections when word_embed_proj_dim differs from the hidden size.
#include "graph/blocks/blocks.hpp"

namespace tilecast::detail {

void build_opt(const ModelConfig& m, GraphBuilder& g) {
  const std::int64_t B = g.batch(), S = g.query_len(), K = g.context_len(), H = m.hidden_size,
                     V = m.vocab_size, P = m.word_embed_proj_dim;
  const std::int64_t R = GraphBuilder::mul(B, S), RK = GraphBuilder::mul(B, K);

  AttentionSpec attn{
      .hidden = H, .heads = m.num_heads, .kv_heads = m.num_heads, .head_dim = m.head_dim};
  attn.names = {"q_proj", "k_proj", "v_proj", "out_proj"};
  attn.qkv_bias = attn.out_bias = m.attention_bias;
  attn.scaling = Scaling::query_mulu;
  attn.mask = Mask::add_clamp;
  attn.per_head_copies = true;
  attn.dropout = m.attention_dropout;
  attn.out_dropout = m.hidden_dropout;
  attn.out_copy = "reshape";
  attn.out_copy_as = "copy (transpose + reshape)";
  attn.out_copy_width = H;
  const MlpSpec mlp_spec{.hidden = H,
                         .inner = m.intermediate_size,
                         .names = {"fc1", "", "fc2"},
                         .bias = m.mlp_bias,
                         .act = m.activation,
                         .act_name = "activation_fn"};

  g.section("embeddings", 1);
  g.embedding("embed_tokens", R, V, P);
  // position ids: (cumsum(mask) * mask) - 1 + offset over the whole context, on
  // integer tensors (no gradient); the new tokens' rows are looked up
  g.vec_fw("mask add", Op::addu, 1, K, OpKind::elementwise);
  g.mem("cumsum", Phase::forward, 2.0 * RK, K, "cumsum");
  g.vec_fw("position ids mul", Op::mul, B, K, OpKind::elementwise);
  g.vec_fw("position ids add", Op::addu, B, K, OpKind::elementwise);
  g.embedding("embed_positions", R, m.max_positions, H);
  if (P != H) g.linear("project_in", R, P, H, {});
  g.vec("add", Op::add, R, H, OpKind::elementwise);

  g.section("decoder layer", m.num_layers);
  norm(g, Norm::layer, "self_attn_layer_norm", R, H);
  attention(g, attn, B, S, K);
  norm(g, Norm::layer, "final_layer_norm", R, H);
  mlp(g, mlp_spec, R);
  residual(g, m.hidden_dropout, R, H);

  g.section("head", 1);
  norm(g, Norm::layer, "final_layer_norm", R, H);
  if (P != H) g.linear("project_out", R, H, P, {});
  g.linear("lm_head", R, P, V, {.tied = m.tie_word_embeddings});
}

}  // namespace tilecast::detail
