// BERT (pre-training heads for training, a sequence classifier for inference): word, token-type and
// position embeddings, post-norm encoder layers with separate Q/K/V, scores
// divided by a scalar and masked with an add, pooler and LM/NSP heads.
#include "graph/builder.hpp"

namespace tilecast::detail {

void build_bert(const ModelConfig& m, GraphBuilder& g) {
  const std::int64_t B = g.batch(), S = g.seq(), H = m.hidden_size, nh = m.num_heads,
                     hd = m.head_dim, F = m.intermediate_size, V = m.vocab_size;
  const std::int64_t R = GraphBuilder::mul(B, S);
  const std::int64_t BH = GraphBuilder::mul(B, nh);
  const std::int64_t BHS = GraphBuilder::mul(B, nh, S);

  g.section("embeddings", 1);
  g.vec_fw("extended attention mask", Op::mulu, B, S, OpKind::elementwise);
  g.embedding("word_embeddings", R, V, H);
  g.embedding("token_type_embeddings", R, m.type_vocab_size, H);
  g.embedding("position_embeddings", S, m.max_positions, H);
  g.vec("add", Op::add, R, H, OpKind::elementwise);
  g.vec("add", Op::add, R, H, OpKind::elementwise);
  g.layer_norm("embeddings LayerNorm", R, H);
  g.dropout("embeddings dropout", m.hidden_dropout, R, H);

  g.section("encoder layer", m.num_layers);
  g.linear("query", R, H, H, true);
  g.linear("key", R, H, H, true);
  g.linear("value", R, H, H, true);
  g.bmm("matmul (q k^T)", BH, S, hd, S);
  g.vec("truediv", Op::divu, BHS, S, OpKind::elementwise);
  g.vec("mask add", Op::add, BHS, S, OpKind::elementwise);
  g.vec("softmax", Op::softmax, BHS, S, OpKind::softmax);
  g.dropout("attention dropout", m.attention_dropout, BHS, S);
  g.bmm("matmul (attn v)", BH, S, S, hd);
  g.mem("contiguous", Phase::forward, 2.0 * R * H, H, "contiguous");
  g.linear("attention output dense", R, H, H, true);
  g.dropout("attention output dropout", m.hidden_dropout, R, H);
  g.vec("residual add", Op::add, R, H, OpKind::elementwise);
  g.layer_norm("attention output LayerNorm", R, H);
  g.linear("intermediate dense", R, H, F, true);
  if (m.activation == Activation::relu)
    g.vec("act", Op::relu, R, F, OpKind::elementwise);
  else if (m.activation == Activation::silu)
    g.vec("act", Op::gelu, R, F, OpKind::elementwise, 1, "silu");
  else
    g.vec("gelu", Op::gelu, R, F, OpKind::elementwise);
  g.linear("output dense", R, F, H, true);
  g.dropout("output dropout", m.hidden_dropout, R, H);
  g.vec("residual add", Op::add, R, H, OpKind::elementwise);
  g.layer_norm("output LayerNorm", R, H);

  // Inference runs a sequence classifier (pooler + 2-way classifier); training runs
  // the pre-training heads (masked-LM transform and decoder, next-sentence), as traced.
  g.section("heads", 1);
  g.linear("pooler dense", B, H, H, true);
  g.vec("pooler activation", Op::tanh, B, H, OpKind::elementwise);
  if (!g.training()) {
    g.linear("classifier", B, H, 2, true);
    return;
  }
  g.linear("transform dense", R, H, H, true);
  g.vec("gelu", Op::gelu, R, H, OpKind::elementwise);
  g.layer_norm("transform LayerNorm", R, H);
  g.linear("decoder", R, H, V, true);
  g.linear("seq_relationship", B, H, 2, true);
}

}  // namespace tilecast::detail
