// Switch Transformers (SwitchTransformersForConditionalGeneration): a T5
// encoder-decoder whose every sparse_step-th feed-forward is a top-1
// mixture of experts. T5 RMSNorm spelt out, relative position bias computed
// once per stack, experts run on capacity-sized token buffers gathered and
// scattered with boolean masks (memory-bound copies).
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

MlpSpec mlp_spec(const ModelConfig& m, const Dims& d, bool expert) {
  MlpSpec s{.hidden = d.H, .inner = d.F, .names = {"wi", "", "wo"}, .act = m.activation};
  if (expert) {
    s.names = {"expert wi", "", "expert wo"};
    s.act_name = "expert act";
  }
  s.inner_dropout = m.hidden_dropout;
  return s;
}

void attention_layer(GraphBuilder& g, const ModelConfig& m, const Dims& d, bool cross) {
  norm(g, Norm::rms, "layer_norm", d.R, d.H);
  attention(g, attention_spec(m, d, cross), d.B, d.S, d.S);
}

void dense_ff(GraphBuilder& g, const ModelConfig& m, const Dims& d) {
  norm(g, Norm::rms, "layer_norm", d.R, d.H);
  mlp(g, mlp_spec(m, d, false), d.R);
  residual(g, m.hidden_dropout, d.R, d.H);
}

void sparse_ff(GraphBuilder& g, const ModelConfig& m, const Dims& d) {
  norm(g, Norm::rms, "layer_norm", d.R, d.H);
  if (g.training()) g.vec("router jitter", Op::mul, d.R, d.H, OpKind::elementwise, 1);
  g.linear("router classifier", d.R, d.H, d.E, {});
  g.vec("router softmax", Op::softmax, d.R, d.E, OpKind::softmax);
  g.mem("router cumsum", Phase::forward, 2.0 * d.R * d.E, d.E, "cumsum");
  g.vec_fw("capacity mask", Op::mul, d.R, d.E, OpKind::elementwise);
  const double RH = double(d.R) * d.H, cap = double(d.cap_rows) * d.H;
  for (std::int64_t e = 0; e < d.E; ++e) {
    g.mem("expert mask", Phase::forward, double(d.R) * d.E + d.R, d.E, "boolean mask select");
    g.mem("expert gather", Phase::forward, RH + d.R + cap, d.H, "boolean-mask gather")
        .saves(double(d.R) * kMaskBytes);
    if (g.training()) {
      g.mem("expert gather", Phase::backward, RH + d.R, d.H, "boolean-mask gather backward");
      g.mem("expert gather", Phase::backward, RH + d.R, d.H, "boolean-mask gather backward");
    }
    mlp(g, mlp_spec(m, d, true), d.cap_rows);
    g.mem("expert scatter", Phase::forward, RH + d.R + cap + 1, d.H, "boolean-mask scatter")
        .saves(double(d.R) * kMaskBytes);
    if (g.training()) {
      g.mem("expert scatter", Phase::backward, RH + d.R + cap, d.H,
            "boolean-mask scatter backward");
      g.mem("expert scatter", Phase::backward, RH + d.R + cap, d.H,
            "boolean-mask scatter backward");
    }
  }
  g.vec("router prob scale", Op::mul, d.R, d.H, OpKind::elementwise, 2);
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

// `count` identical blocks: self-attention, cross-attention in the decoder, then the
// dense or the expert feed-forward. No section when count is 0.
void blocks(GraphBuilder& g, const ModelConfig& m, const Dims& d, const char* name,
            std::int64_t count, bool decoder, bool experts) {
  if (count <= 0) return;
  g.section(name, count);
  attention_layer(g, m, d, false);
  if (decoder) attention_layer(g, m, d, true);
  if (experts)
    sparse_ff(g, m, d);
  else
    dense_ff(g, m, d);
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

  auto count_sparse = [](std::int64_t layers, std::int64_t step) {
    std::int64_t n = 0;
    for (std::int64_t i = 0; i < layers; ++i) n += is_sparse_layer(step, i) ? 1 : 0;
    return n;
  };
  const std::int64_t enc_sparse = count_sparse(m.num_layers, m.encoder_sparse_step);
  const std::int64_t dec_sparse = count_sparse(m.num_decoder_layers, m.decoder_sparse_step);

  g.section("encoder embeddings", 1);
  g.vec_fw("extended attention mask", Op::mulu, d.B, d.S, OpKind::elementwise);
  g.embedding("shared embedding (encoder)", d.R, d.V, d.H);
  g.dropout("dropout", m.hidden_dropout, d.R, d.H);
  position_bias(g, d);
  blocks(g, m, d, "encoder block (dense)", m.num_layers - enc_sparse, false, false);
  blocks(g, m, d, "encoder block (experts)", enc_sparse, false, true);
  g.section("decoder embeddings", 1);
  norm(g, Norm::rms, "encoder final_layer_norm", d.R, d.H);
  g.dropout("dropout", m.hidden_dropout, d.R, d.H);
  g.vec_fw("causal mask", Op::mul, d.S, d.S, OpKind::elementwise);
  g.vec_fw("causal mask", Op::mulu, d.S, d.S, OpKind::elementwise);
  g.embedding("shared embedding (decoder)", d.R, d.V, d.H, true);
  g.dropout("dropout", m.hidden_dropout, d.R, d.H);
  position_bias(g, d);
  g.vec("cross-attention mask", Op::add, d.BHS, d.S, OpKind::elementwise);
  blocks(g, m, d, "decoder block (dense)", m.num_decoder_layers - dec_sparse, true, false);
  blocks(g, m, d, "decoder block (experts)", dec_sparse, true, true);
  g.section("head", 1);
  norm(g, Norm::rms, "decoder final_layer_norm", d.R, d.H);
  g.dropout("dropout", m.hidden_dropout, d.R, d.H);
  g.vec("tied embedding scale", Op::mulu, d.R, d.H, OpKind::elementwise);
  g.linear("lm_head", d.R, d.H, d.V, {.tied = m.tie_word_embeddings});
}

}  // namespace tilecast::detail
