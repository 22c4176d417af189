// Switch Transformers (SwitchTransformersForConditionalGeneration): a T5
// encoder-decoder whose every sparse_step-th feed-forward is a top-1
// mixture of experts (blocks/switch_moe.cpp: the router and the expert loop of
// transformers 4 or 5). T5 RMSNorm spelt out, relative position bias computed
// once per stack.
#include <algorithm>

#include "graph/blocks/blocks.hpp"

namespace tilecast::detail {
namespace {

struct Dims {
  std::int64_t B, S, H, nh, dkv, inner, F, V, E, R, BH, BHS, cap_rows;
};

AttentionSpec attention_spec(const ModelConfig& m, const Dims& d, bool cross) {
  AttentionSpec a{.hidden = d.H, .heads = d.nh, .kv_heads = d.nh, .head_dim = d.dkv};
  a.names = {"q", "k", "v", "o"};
  a.scaling = Scaling::none;
  a.mask = Mask::position_bias;
  a.dropout = m.attention_dropout;
  a.out_dropout = m.hidden_dropout;
  a.out_copy_width = d.dkv;
  a.cross = cross;
  return a;
}

MlpSpec dense_mlp_spec(const ModelConfig& m, const Dims& d) {
  MlpSpec s{.hidden = d.H, .inner = d.F, .names = {"wi", "", "wo"}, .act = m.activation};
  s.inner_dropout = m.hidden_dropout;
  return s;
}

// `fresh_bias`: the layer makes its own bias, a zero (1, heads, S, S) tensor plus the mask
// (transformers 5, below).
void attention_layer(GraphBuilder& g, const ModelConfig& m, const Dims& d, bool cross,
                     bool fresh_bias) {
  norm(g, Norm::rms, "layer_norm", d.R, d.H);
  if (fresh_bias) {
    g.mem("position bias", Phase::forward, double(d.nh) * double(d.S) * double(d.S), d.S, "zeros");
    g.vec_fw(cross ? "cross-attention mask" : "bias + mask", Op::add, d.BHS, d.S,
             OpKind::elementwise);
  }
  attention(g, attention_spec(m, d, cross), d.B, d.S, d.S);
}

void dense_ff(GraphBuilder& g, const ModelConfig& m, const Dims& d) {
  norm(g, Norm::rms, "layer_norm", d.R, d.H);
  mlp(g, dense_mlp_spec(m, d), d.R);
  residual(g, m.hidden_dropout, d.R, d.H);
}

void sparse_ff(GraphBuilder& g, const ModelConfig& m, const Dims& d) {
  norm(g, Norm::rms, "layer_norm", d.R, d.H);
  const SwitchMoeSpec s{.hidden = d.H,
                        .experts = d.E,
                        .expert_inner = d.F,
                        .act = m.activation,
                        .dropout = m.hidden_dropout,
                        .capacity_rows = d.cap_rows,
                        .transformers_major = m.transformers_major};
  switch_sparse_mlp(g, s, d.R);
  residual(g, m.hidden_dropout, d.R, d.H);
}

// Relative position buckets over S x S (integer math) and the bias lookup.
void position_bias(GraphBuilder& g, const Dims& d) {
  const std::int64_t S = d.S;
  g.vec_fw("relative position", Op::mulu, S, S, OpKind::elementwise);
  g.vec_fw("relative position", Op::addu, S, S, OpKind::elementwise);
  g.vec_fw("relative position", Op::divu, S, S, OpKind::elementwise);
  g.vec_fw("relative position", Op::divu, S, S, OpKind::elementwise);
  g.vec_fw("relative position", Op::mulu, S, S, OpKind::elementwise);
  g.vec_fw("relative position", Op::addu, S, S, OpKind::elementwise);
  g.mem("relative position", Phase::forward, 4.0 * S * S, S, "where");
  g.vec_fw("relative position", Op::add, S, S, OpKind::elementwise);
  g.embedding("relative_attention_bias", GraphBuilder::mul(S, S), 32, d.nh);
  g.vec("bias + mask", Op::add, d.BHS, S, OpKind::elementwise);
}

// Where a block's attention biases come from. handed_on (transformers 4): the relative bias
// plus mask and the decoder's zero cross-attention bias plus the encoder's mask, each made once
// per stack (position_bias, "cross-attention mask"). fresh_cross (transformers 5's first
// block): the stack's relative bias, its own cross-attention bias. fresh (transformers 5's
// later blocks): both its own.
enum class Bias { handed_on, fresh_cross, fresh };

// `count` identical blocks: self-attention, cross-attention in the decoder, then the
// dense or the expert feed-forward. No section when count is 0.
void blocks(GraphBuilder& g, const ModelConfig& m, const Dims& d, const char* name,
            std::int64_t count, bool decoder, bool experts, Bias bias) {
  if (count <= 0) return;
  g.section(name, count);
  attention_layer(g, m, d, false, bias == Bias::fresh);
  if (decoder) attention_layer(g, m, d, true, bias != Bias::handed_on);
  if (experts)
    sparse_ff(g, m, d);
  else
    dense_ff(g, m, d);
}

// A stack's blocks, dense and sparse ones in a section each. transformers 4 hands the first
// block's biases on to the later blocks; transformers 5's stack passes none (it keeps no block
// output but the hidden states), so every later block makes a zero bias plus the mask before its
// self-attention and every cross-attention its own: the stack's first block gets a section.
void stack(GraphBuilder& g, const ModelConfig& m, const Dims& d, bool decoder) {
  const std::int64_t layers = decoder ? m.num_decoder_layers : m.num_layers;
  const std::int64_t step = decoder ? m.decoder_sparse_step : m.encoder_sparse_step;
  std::int64_t sparse = 0;
  for (std::int64_t i = 0; i < layers; ++i) sparse += is_sparse_layer(step, i) ? 1 : 0;
  const char* dense_name = decoder ? "decoder block (dense)" : "encoder block (dense)";
  const char* sparse_name = decoder ? "decoder block (experts)" : "encoder block (experts)";
  if (m.transformers_major < 5 || layers <= 0) {
    blocks(g, m, d, dense_name, layers - sparse, decoder, false, Bias::handed_on);
    blocks(g, m, d, sparse_name, sparse, decoder, true, Bias::handed_on);
    return;
  }
  const bool first_sparse = is_sparse_layer(step, 0);
  const char* first_name =
      decoder ? (first_sparse ? "decoder block 0 (experts)" : "decoder block 0 (dense)")
              : (first_sparse ? "encoder block 0 (experts)" : "encoder block 0 (dense)");
  blocks(g, m, d, first_name, 1, decoder, first_sparse, Bias::fresh_cross);
  blocks(g, m, d, dense_name, layers - sparse - (first_sparse ? 0 : 1), decoder, false,
         Bias::fresh);
  blocks(g, m, d, sparse_name, sparse - (first_sparse ? 1 : 0), decoder, true, Bias::fresh);
}

}  // namespace

void build_switch(const ModelConfig& m, GraphBuilder& g) {
  Dims d{};
  d.B = g.batch();
  d.S = g.query_len();
  d.H = m.hidden_size;
  d.nh = m.num_heads;
  d.dkv = m.head_dim;
  d.inner = GraphBuilder::mul(d.nh, d.dkv);
  d.F = m.intermediate_size;
  d.V = m.vocab_size;
  d.E = m.num_experts;
  d.R = GraphBuilder::mul(d.B, d.S);
  d.BH = GraphBuilder::mul(d.B, d.nh);
  d.BHS = GraphBuilder::mul(d.B, d.nh, d.S);
  d.cap_rows = std::min(GraphBuilder::mul(m.expert_capacity, d.B), d.R);

  g.section("encoder embeddings", 1);
  g.vec_fw("extended attention mask", Op::mulu, d.B, d.S, OpKind::elementwise);
  g.embedding("shared embedding (encoder)", d.R, d.V, d.H);
  g.dropout("dropout", m.hidden_dropout, d.R, d.H);
  position_bias(g, d);
  stack(g, m, d, false);
  g.section("decoder embeddings", 1);
  norm(g, Norm::rms, "encoder final_layer_norm", d.R, d.H);
  g.dropout("dropout", m.hidden_dropout, d.R, d.H);
  g.vec_fw("causal mask", Op::mul, d.S, d.S, OpKind::elementwise);
  g.vec_fw("causal mask", Op::mulu, d.S, d.S, OpKind::elementwise);
  g.embedding("shared embedding (decoder)", d.R, d.V, d.H, true);
  g.dropout("dropout", m.hidden_dropout, d.R, d.H);
  position_bias(g, d);
  if (m.transformers_major < 5)
    g.vec("cross-attention mask", Op::add, d.BHS, d.S, OpKind::elementwise);
  stack(g, m, d, true);
  g.section("head", 1);
  norm(g, Norm::rms, "decoder final_layer_norm", d.R, d.H);
  g.dropout("dropout", m.hidden_dropout, d.R, d.H);
  g.vec("tied embedding scale", Op::mulu, d.R, d.H, OpKind::elementwise);
  g.linear("lm_head", d.R, d.H, d.V, {.tied = m.tie_word_embeddings});
}

}  // namespace tilecast::detail
