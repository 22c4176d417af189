// GPT-J (GPTJForCausalLM, eager attention): one LayerNorm feeds attention and the MLP in
// parallel, and both outputs are added to the residual together; q, k, v and out projections
// without biases, rotary on the first rotary_dim features of each head (its sin/cos gathered per
// layer, repeated to every pair, the rest of the head concatenated back), scores over a constant
// tensor, the tanh GELU ("gelu_new") MLP with biases, an untied LM head with a bias.
#include "graph/blocks/blocks.hpp"

namespace tilecast::detail {

void build_gptj(const ModelConfig& m, GraphBuilder& g) {
  const std::int64_t B = g.batch(), S = g.query_len(), K = g.context_len(), H = m.hidden_size,
                     V = m.vocab_size, rd = rotary_features(m);
  const std::int64_t R = GraphBuilder::mul(B, S);

  AttentionSpec attn = rotary_attention(m);
  attn.names = {"q_proj", "k_proj", "v_proj", "out_proj"};
  attn.scaling = Scaling::scores_div_tensor;  // attn_weights / self.scale_attn (a tensor)
  attn.out_dropout = m.hidden_dropout;
  const MlpSpec mlp_spec = dense_mlp(m, {"fc_in", "", "fc_out"});

  g.section("embeddings", 1);
  g.embedding("wte", R, V, H);
  g.dropout("drop", m.hidden_dropout, R, H);

  g.section("block", m.num_layers);
  norm(g, Norm::layer, "ln_1", R, H);
  // sincos = gather(embed_positions, position ids repeated rd times); sin and cos repeated to
  // every pair of features, for q and for k
  g.mem("position ids repeat", Phase::forward, g.mem_elements(8.0 * double(R) * double(rd)), rd,
        "repeat");
  g.mem("sincos gather", Phase::forward, 2.0 * double(R) * double(rd), rd, "gather");
  g.mem("sin/cos repeat_interleave", Phase::forward, 4 * 2.0 * double(R) * double(rd), rd,
        "repeat_interleave");
  attention(g, attn, B, S, K);  // its residual add: attention + MLP outputs
  mlp(g, mlp_spec, R);
  residual(g, m.hidden_dropout, R, H);  // ... + the block's input

  g.section("head", 1);
  norm(g, Norm::layer, "ln_f", R, H);
  g.linear("lm_head", R, H, V, {.bias = true, .tied = m.tie_word_embeddings});
}

}  // namespace tilecast::detail
