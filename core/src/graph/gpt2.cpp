// GPT-2 (and the GPT-3 sizes, which use the same modules): GPT2LMHeadModel as
// Hugging Face runs it in eager mode — fused QKV (c_attn), attention scores
// divided by a constant tensor, the causal mask applied with `where`, the tanh
// GELU ("gelu_new") spelt out in element-wise ops, tied LM head.
#include "graph/blocks/blocks.hpp"

namespace tilecast::detail {

void build_gpt2(const ModelConfig& m, GraphBuilder& g) {
  const std::int64_t B = g.batch(), S = g.query_len(), K = g.context_len(), H = m.hidden_size,
                     V = m.vocab_size;
  const std::int64_t R = GraphBuilder::mul(B, S);

  AttentionSpec attn{
      .hidden = H, .heads = m.num_heads, .kv_heads = m.num_heads, .head_dim = m.head_dim};
  attn.names = {"c_attn", "", "", "c_proj"};
  attn.fused_qkv = true;
  attn.qkv_bias = attn.out_bias = true;
  attn.scaling = Scaling::scores_div_tensor;
  attn.mask = Mask::where;
  attn.dropout = m.attention_dropout;
  attn.out_dropout = m.hidden_dropout;
  attn.out_copy_width = H;
  const MlpSpec mlp_spec{.hidden = H,
                         .inner = m.intermediate_size,
                         .names = {"c_fc", "", "mlp c_proj"},
                         .bias = true,
                         .act = m.activation};

  g.section("embeddings", 1);
  g.embedding("wte", R, V, H);
  g.embedding("wpe", S, m.max_positions, H);  // position ids are (1, S): the new tokens
  g.vec("add", Op::add, R, H, OpKind::elementwise);
  g.dropout("drop", m.hidden_dropout, R, H);

  g.section("transformer layer", m.num_layers);
  norm(g, Norm::layer, "ln_1", R, H);
  attention(g, attn, B, S, K);
  norm(g, Norm::layer, "ln_2", R, H);
  mlp(g, mlp_spec, R);
  residual(g, m.hidden_dropout, R, H);

  g.section("head", 1);
  norm(g, Norm::layer, "ln_f", R, H);
  g.linear("lm_head", R, H, V, {.tied = m.tie_word_embeddings});
}

}  // namespace tilecast::detail
