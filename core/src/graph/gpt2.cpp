// GPT-2 (and the GPT-3 sizes, which use the same modules): GPT2LMHeadModel as
// Hugging Face runs it in eager mode — fused QKV (c_attn), attention scores
// divided by a constant tensor, the causal mask applied with `where`, the tanh
// GELU ("gelu_new") spelt out in element-wise ops, tied LM head.
#include "graph/builder.hpp"

namespace tilecast::detail {

void build_gpt2(const ModelConfig& m, GraphBuilder& g) {
  const std::int64_t B = g.batch(), S = g.seq(), H = m.hidden_size, nh = m.num_heads,
                     hd = m.head_dim, F = m.intermediate_size, V = m.vocab_size;
  const std::int64_t R = GraphBuilder::mul(B, S);
  const std::int64_t BH = GraphBuilder::mul(B, nh);
  const std::int64_t BHS = GraphBuilder::mul(B, nh, S);
  const double scores = double(BHS) * double(S);
  GraphBuilder::mul(scores / double(S), 1);  // checks B*nh*S

  g.section("embeddings", 1);
  g.embedding("wte", R, V, H);
  g.embedding("wpe", S, m.max_positions, H);  // position ids are (1, S)
  g.vec("add", Op::add, R, H, OpKind::elementwise);
  g.dropout("drop", m.hidden_dropout, R, H);

  g.section("transformer layer", m.num_layers);
  g.layer_norm("ln_1", R, H);
  g.linear("c_attn", R, H, 3 * H, true);
  g.bmm("matmul (q k^T)", BH, S, hd, S);
  g.vec("truediv", Op::div, BHS, S, OpKind::elementwise, 1);  // / a constant tensor
  // torch.where(causal_mask, w, min): reads mask and scores, writes scores
  g.mem("where", Phase::forward, double(S) * S + 2 * scores + 1, S, "where");
  if (g.training()) {
    g.mem("where", Phase::backward, double(S) * S + scores + 1, S, "where");
    g.mem("where", Phase::backward, double(S) * S + scores + 1, S, "where");
  }
  g.vec("softmax", Op::softmax, BHS, S, OpKind::softmax);
  g.dropout("attn_dropout", m.attention_dropout, BHS, S);
  g.bmm("matmul (attn v)", BH, S, S, hd);
  g.mem("contiguous", Phase::forward, 2.0 * R * H, H, "contiguous");
  g.linear("c_proj", R, H, H, true);
  g.dropout("resid_dropout", m.hidden_dropout, R, H);
  g.vec("residual add", Op::add, R, H, OpKind::elementwise);
  g.layer_norm("ln_2", R, H);
  g.linear("c_fc", R, H, F, true);
  if (m.activation == Activation::gelu_new) {
    // 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))
    g.vec("gelu_new mul", Op::mulu, R, F, OpKind::elementwise);
    g.vec("gelu_new pow", Op::powu, R, F, OpKind::elementwise);
    g.vec("gelu_new mul", Op::mulu, R, F, OpKind::elementwise);
    g.vec("gelu_new add", Op::add, R, F, OpKind::elementwise);
    g.vec("gelu_new mul", Op::mulu, R, F, OpKind::elementwise);
    g.vec("gelu_new tanh", Op::tanh, R, F, OpKind::elementwise);
    g.vec("gelu_new add", Op::addu, R, F, OpKind::elementwise);
    g.vec("gelu_new mul", Op::mul, R, F, OpKind::elementwise, 2);
  } else if (m.activation == Activation::relu) {
    g.vec("act", Op::relu, R, F, OpKind::elementwise);
  } else if (m.activation == Activation::silu) {
    g.vec("act", Op::gelu, R, F, OpKind::elementwise, 1, "silu");
  } else {
    g.vec("act", Op::gelu, R, F, OpKind::elementwise);
  }
  g.linear("mlp c_proj", R, F, H, true);
  g.dropout("mlp dropout", m.hidden_dropout, R, H);
  g.vec("residual add", Op::add, R, H, OpKind::elementwise);

  g.section("head", 1);
  g.layer_norm("ln_f", R, H);
  g.linear("lm_head", R, H, V, false);
}

}  // namespace tilecast::detail
