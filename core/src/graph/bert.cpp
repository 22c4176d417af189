// BERT (pre-training heads for training, a sequence classifier for inference): word, token-type and
// position embeddings, post-norm encoder layers with separate Q/K/V, scores
// divided by a scalar and masked with an add, pooler and LM/NSP heads.
#include "graph/blocks/blocks.hpp"

namespace tilecast::detail {

void build_bert(const ModelConfig& m, GraphBuilder& g) {
  const std::int64_t B = g.batch(), S = g.query_len(), H = m.hidden_size, V = m.vocab_size;
  const std::int64_t R = GraphBuilder::mul(B, S);

  AttentionSpec attn{
      .hidden = H, .heads = m.num_heads, .kv_heads = m.num_heads, .head_dim = m.head_dim};
  attn.names = {"query", "key", "value", "attention output dense"};
  attn.qkv_bias = attn.out_bias = true;
  attn.dropout = m.attention_dropout;
  attn.out_dropout = m.hidden_dropout;
  attn.out_copy_width = H;
  const MlpSpec mlp_spec{.hidden = H,
                         .inner = m.intermediate_size,
                         .names = {"intermediate dense", "", "output dense"},
                         .bias = true,
                         .act = m.activation};

  g.section("embeddings", 1);
  g.vec_fw("extended attention mask", Op::mulu, B, S, OpKind::elementwise);
  g.embedding("word_embeddings", R, V, H);
  g.embedding("token_type_embeddings", R, m.type_vocab_size, H);
  g.embedding("position_embeddings", S, m.max_positions, H);
  g.vec("add", Op::add, R, H, OpKind::elementwise);
  g.vec("add", Op::add, R, H, OpKind::elementwise);
  norm(g, Norm::layer, "embeddings LayerNorm", R, H);
  g.dropout("embeddings dropout", m.hidden_dropout, R, H);

  g.section("encoder layer", m.num_layers);
  attention(g, attn, B, S, S);
  norm(g, Norm::layer, "attention output LayerNorm", R, H);
  mlp(g, mlp_spec, R);
  residual(g, m.hidden_dropout, R, H);
  norm(g, Norm::layer, "output LayerNorm", R, H);

  // Inference runs a sequence classifier (pooler + 2-way classifier); training runs
  // the pre-training heads (masked-LM transform and decoder, next-sentence), as traced.
  g.section("heads", 1);
  g.linear("pooler dense", B, H, H, {.bias = true});
  g.vec("pooler activation", Op::tanh, B, H, OpKind::elementwise);
  if (!g.training()) {
    g.linear("classifier", B, H, 2, {.bias = true});
    return;
  }
  g.linear("transform dense", R, H, H, {.bias = true});
  activation(g, "transform act", m.activation, R, H);
  norm(g, Norm::layer, "transform LayerNorm", R, H);
  g.linear("decoder", R, H, V, {.bias = true, .tied = m.tie_word_embeddings});
  g.linear("seq_relationship", B, H, 2, {.bias = true});
}

}  // namespace tilecast::detail
