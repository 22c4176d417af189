// Falcon (FalconForCausalLM, eager attention): attention and the MLP in parallel, on one
// LayerNorm (input_layernorm: Falcon 7B) or two (ln_attn and ln_mlp: the new decoder
// architecture of Falcon 40B and 180B); one query_key_value GEMM for the query heads and the
// multi- or grouped-query K/V heads, rotary over every head feature, a GELU MLP 4x wide, biases
// as the config's `bias` says, the LM head tied to the embeddings. GPT-NeoX's layer is this one
// on two norms (its input_layernorm and post_attention_layernorm), rotary on part of each head,
// biases, an untied head (its row).
#include "graph/blocks/blocks.hpp"

namespace tilecast::detail {

void build_falcon(const ModelConfig& m, GraphBuilder& g) {
  const std::int64_t B = g.batch(), S = g.query_len(), K = g.context_len(), H = m.hidden_size,
                     V = m.vocab_size;
  const std::int64_t R = GraphBuilder::mul(B, S);

  AttentionSpec attn = rotary_attention(m);  // fused query_key_value (the row's fused_qkv)
  attn.names = {"query_key_value", "", "", "dense"};
  attn.out_dropout = 0;  // the block's one dropout_add is below
  const MlpSpec mlp_spec = dense_mlp(m, {"dense_h_to_4h", "", "dense_4h_to_h"});

  g.section("embeddings", 1);
  g.embedding("word_embeddings", R, V, H);
  const std::int64_t rd = rotary_features(m);
  g.mem("rotary cos/sin", Phase::forward, 4.0 * R * rd, rd, "rotary tables");

  g.section("decoder layer", m.num_layers);
  if (m.parallel_norms == 2) {
    norm(g, Norm::layer, "ln_attn", R, H);
    norm(g, Norm::layer, "ln_mlp", R, H);
  } else {
    norm(g, Norm::layer, "input_layernorm", R, H);
  }
  attention(g, attn, B, S, K);  // its residual add: mlp_output += attention_output
  mlp(g, mlp_spec, R);
  residual(g, m.hidden_dropout, R, H);  // dropout_add(mlp_output, residual)

  g.section("head", 1);
  norm(g, Norm::layer, "ln_f", R, H);
  g.linear("lm_head", R, H, V, {.tied = m.tie_word_embeddings});
}

}  // namespace tilecast::detail
