// OPT (OPTForCausalLM): learned positions offset by 2 (computed from a cumsum of
// the mask), pre-norm decoder layers, q scaled by a constant, K/V/Q made
// contiguous per head, scores clamped with torch.max against the dtype minimum
// (an element-wise kernel whose backward costs five), ReLU MLP, optional
// projections when word_embed_proj_dim differs from the hidden size.
#include "graph/builder.hpp"

namespace tilecast::detail {

void build_opt(const ModelConfig& m, GraphBuilder& g) {
  const std::int64_t B = g.batch(), S = g.seq(), H = m.hidden_size, nh = m.num_heads,
                     hd = m.head_dim, F = m.intermediate_size, V = m.vocab_size,
                     P = m.word_embed_proj_dim;
  const std::int64_t R = GraphBuilder::mul(B, S);
  const std::int64_t BH = GraphBuilder::mul(B, nh);
  const std::int64_t BHS = GraphBuilder::mul(B, nh, S);

  g.section("embeddings", 1);
  g.embedding("embed_tokens", R, V, P);
  // position ids: (cumsum(mask) * mask) - 1 + offset, on integer tensors (no gradient)
  g.vec_fw("mask add", Op::addu, 1, S, OpKind::elementwise);
  g.mem("cumsum", Phase::forward, 2.0 * R, S, "cumsum");
  g.vec_fw("position ids mul", Op::mul, B, S, OpKind::elementwise);
  g.vec_fw("position ids add", Op::addu, B, S, OpKind::elementwise);
  g.embedding("embed_positions", R, m.max_positions, H);
  if (P != H) g.linear("project_in", R, P, H, false);
  g.vec("add", Op::add, R, H, OpKind::elementwise);

  g.section("decoder layer", m.num_layers);
  g.layer_norm("self_attn_layer_norm", R, H);
  g.linear("q_proj", R, H, H, m.attention_bias);
  g.vec("scaling", Op::mulu, R, H, OpKind::elementwise);
  g.linear("k_proj", R, H, H, m.attention_bias);
  g.mem("contiguous (k)", Phase::forward, 2.0 * R * H, hd, "contiguous");
  g.linear("v_proj", R, H, H, m.attention_bias);
  g.mem("contiguous (v)", Phase::forward, 2.0 * R * H, hd, "contiguous");
  g.mem("contiguous (q)", Phase::forward, 2.0 * R * H, hd, "contiguous");
  g.bmm("bmm (q k^T)", BH, S, hd, S);
  g.vec("mask add", Op::add, BHS, S, OpKind::elementwise);
  // torch.max(w, finfo.min): one element-wise kernel; its backward is
  // where(w == min, grad / 2, grad).masked_fill_(w < min, 0): five kernels.
  g.vec_fw("max (clamp)", Op::addu, BHS, S, OpKind::elementwise, "maximum");
  g.vec_bw("max (clamp)", Op::addu, BHS, S, OpKind::elementwise, "eq");
  g.vec_bw("max (clamp)", Op::divu, BHS, S, OpKind::elementwise);
  g.vec_bw("max (clamp)", Op::add, BHS, S, OpKind::elementwise, "where");
  g.vec_bw("max (clamp)", Op::addu, BHS, S, OpKind::elementwise, "lt");
  g.vec_bw("max (clamp)", Op::mulu, BHS, S, OpKind::elementwise, "masked_fill");
  g.vec("softmax", Op::softmax, BHS, S, OpKind::softmax);
  g.dropout("attention dropout", m.attention_dropout, BHS, S);
  g.bmm("bmm (attn v)", BH, S, S, hd);
  g.mem("reshape", Phase::forward, 2.0 * R * H, H, "copy (transpose + reshape)");
  g.linear("out_proj", R, H, H, m.attention_bias);
  g.dropout("dropout", m.hidden_dropout, R, H);
  g.vec("residual add", Op::add, R, H, OpKind::elementwise);
  g.layer_norm("final_layer_norm", R, H);
  g.linear("fc1", R, H, F, m.mlp_bias);
  if (m.activation == Activation::relu)
    g.vec("activation_fn", Op::relu, R, F, OpKind::elementwise);
  else if (m.activation == Activation::silu)
    g.vec("activation_fn", Op::gelu, R, F, OpKind::elementwise, 1, "silu");
  else
    g.vec("activation_fn", Op::gelu, R, F, OpKind::elementwise);
  g.linear("fc2", R, F, H, m.mlp_bias);
  g.dropout("dropout", m.hidden_dropout, R, H);
  g.vec("residual add", Op::add, R, H, OpKind::elementwise);

  g.section("head", 1);
  g.layer_norm("final_layer_norm", R, H);
  if (P != H) g.linear("project_out", R, H, P, false);
  g.linear("lm_head", R, P, V, false);
}

}  // namespace tilecast::detail
