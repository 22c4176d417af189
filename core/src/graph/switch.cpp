// Switch Transformers (SwitchTransformersForConditionalGeneration): a T5
// encoder-decoder whose every sparse_step-th feed-forward is a top-1
// mixture of experts. T5 RMSNorm spelt out, relative position bias computed
// once per stack, experts run on capacity-sized token buffers gathered and
// scattered with boolean masks (memory-bound copies).
#include <algorithm>

#include "graph/builder.hpp"

namespace tilecast::detail {
namespace {

struct Dims {
  std::int64_t B, S, H, nh, dkv, inner, F, V, E, R, BH, BHS, cap_rows;
};

void attention(GraphBuilder& g, const ModelConfig& m, const Dims& d, bool cross) {
  g.rms_norm("layer_norm", d.R, d.H);
  g.linear("q", d.R, d.H, d.inner, false);
  g.linear("k", d.R, d.H, d.inner, false);  // cross-attention: encoder states (same length)
  g.linear("v", d.R, d.H, d.inner, false);
  g.bmm("matmul (q k^T)", d.BH, d.S, d.dkv, d.S);
  g.vec("position bias add", Op::add, d.BHS, d.S, OpKind::elementwise);
  g.vec("softmax", Op::softmax, d.BHS, d.S, OpKind::softmax);
  g.dropout("attention dropout", m.attention_dropout, d.BHS, d.S);
  g.bmm("matmul (attn v)", d.BH, d.S, d.S, d.dkv);
  g.mem("contiguous", Phase::forward, 2.0 * d.R * d.inner, d.dkv, "contiguous");
  g.linear("o", d.R, d.inner, d.H, false);
  g.dropout("dropout", m.hidden_dropout, d.R, d.H);
  g.vec("residual add", Op::add, d.R, d.H, OpKind::elementwise);
  (void)cross;
}

void dense_ff(GraphBuilder& g, const ModelConfig& m, const Dims& d) {
  g.rms_norm("layer_norm", d.R, d.H);
  g.linear("wi", d.R, d.H, d.F, false);
  g.vec("act", Op::relu, d.R, d.F, OpKind::elementwise);
  g.dropout("mlp dropout", m.hidden_dropout, d.R, d.F);
  g.linear("wo", d.R, d.F, d.H, false);
  g.dropout("dropout", m.hidden_dropout, d.R, d.H);
  g.vec("residual add", Op::add, d.R, d.H, OpKind::elementwise);
}

void sparse_ff(GraphBuilder& g, const ModelConfig& m, const Dims& d) {
  g.rms_norm("layer_norm", d.R, d.H);
  if (g.training()) g.vec("router jitter", Op::mul, d.R, d.H, OpKind::elementwise, 1);
  g.linear("router classifier", d.R, d.H, d.E, false);
  g.vec("router softmax", Op::softmax, d.R, d.E, OpKind::softmax);
  g.mem("router cumsum", Phase::forward, 2.0 * d.R * d.E, d.E, "cumsum");
  g.vec_fw("capacity mask", Op::mul, d.R, d.E, OpKind::elementwise);
  const double RH = double(d.R) * d.H, cap = double(d.cap_rows) * d.H;
  for (std::int64_t e = 0; e < d.E; ++e) {
    g.mem("expert mask", Phase::forward, double(d.R) * d.E + d.R, d.E, "boolean mask select");
    g.mem("expert gather", Phase::forward, RH + d.R + cap, d.H, "boolean-mask gather");
    if (g.training()) {
      g.mem("expert gather", Phase::backward, RH + d.R, d.H, "boolean-mask gather backward");
      g.mem("expert gather", Phase::backward, RH + d.R, d.H, "boolean-mask gather backward");
    }
    g.linear("expert wi", d.cap_rows, d.H, d.F, false);
    g.vec("expert act", Op::relu, d.cap_rows, d.F, OpKind::elementwise);
    g.dropout("expert dropout", m.hidden_dropout, d.cap_rows, d.F);
    g.linear("expert wo", d.cap_rows, d.F, d.H, false);
    g.mem("expert scatter", Phase::forward, RH + d.R + cap + 1, d.H, "boolean-mask scatter");
    if (g.training()) {
      g.mem("expert scatter", Phase::backward, RH + d.R + cap, d.H,
            "boolean-mask scatter backward");
      g.mem("expert scatter", Phase::backward, RH + d.R + cap, d.H,
            "boolean-mask scatter backward");
    }
  }
  g.vec("router prob scale", Op::mul, d.R, d.H, OpKind::elementwise, 2);
  g.dropout("dropout", m.hidden_dropout, d.R, d.H);
  g.vec("residual add", Op::add, d.R, d.H, OpKind::elementwise);
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

}  // namespace

// `count` identical blocks: self-attention, cross-attention in the decoder, then the
// dense or the expert feed-forward. No section when count is 0.
void blocks(GraphBuilder& g, const ModelConfig& m, const Dims& d, const char* name,
            std::int64_t count, bool decoder, bool experts) {
  if (count <= 0) return;
  g.section(name, count);
  attention(g, m, d, false);
  if (decoder) attention(g, m, d, true);
  if (experts)
    sparse_ff(g, m, d);
  else
    dense_ff(g, m, d);
}

void build_switch(const ModelConfig& m, GraphBuilder& g) {
  Dims d{};
  d.B = g.batch();
  d.S = g.seq();
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
  g.rms_norm("encoder final_layer_norm", d.R, d.H);
  g.dropout("dropout", m.hidden_dropout, d.R, d.H);
  g.vec_fw("causal mask", Op::mul, d.S, d.S, OpKind::elementwise);
  g.vec_fw("causal mask", Op::mulu, d.S, d.S, OpKind::elementwise);
  g.embedding("shared embedding (decoder)", d.R, d.V, d.H);
  g.dropout("dropout", m.hidden_dropout, d.R, d.H);
  position_bias(g, d);
  g.vec("cross-attention mask", Op::add, d.BHS, d.S, OpKind::elementwise);
  blocks(g, m, d, "decoder block (dense)", m.num_decoder_layers - dec_sparse, true, false);
  blocks(g, m, d, "decoder block (experts)", dec_sparse, true, true);
  g.section("head", 1);
  g.rms_norm("decoder final_layer_norm", d.R, d.H);
  g.dropout("dropout", m.hidden_dropout, d.R, d.H);
  g.vec("tied embedding scale", Op::mulu, d.R, d.H, OpKind::elementwise);
  g.linear("lm_head", d.R, d.H, d.V, false);
}

}  // namespace tilecast::detail
