// Llama, Mistral and Qwen2 (…ForCausalLM, eager attention): RMSNorm spelt out
// in element-wise ops, rotary embedding (mul, rotate_half's neg and cat, add),
// grouped-query K/V repeated to every head, SwiGLU MLP, untied LM head. SiLU,
// RMSNorm's mean/rsqrt, rotary's neg/cat and the GQA repeat have no
// measurements of their own and are forecast by the closest measured class.
#include "graph/builder.hpp"

namespace tilecast::detail {
namespace {

// q*cos + rotate_half(q)*sin over rows x hd (rows = batch x heads x seq).
void rotary(GraphBuilder& g, std::string_view name, std::int64_t rows, std::int64_t hd) {
  const double n = double(rows) * double(hd);
  g.vec(name, Op::mul, rows, hd, OpKind::elementwise, 1);
  g.vec(name, Op::mulu, rows, hd / 2 > 0 ? hd / 2 : 1, OpKind::elementwise, 1, "rotary neg");
  g.mem(name, Phase::forward, 2 * n, hd, "rotary cat");
  if (g.training()) g.mem(name, Phase::backward, 2 * n, hd, "rotary cat backward");
  g.vec(name, Op::mul, rows, hd, OpKind::elementwise, 1);
  g.vec(name, Op::add, rows, hd, OpKind::elementwise);
}

}  // namespace

void build_llama(const ModelConfig& m, GraphBuilder& g) {
  const std::int64_t B = g.batch(), S = g.seq(), H = m.hidden_size, nh = m.num_heads,
                     kv = m.num_kv_heads, hd = m.head_dim, F = m.intermediate_size,
                     V = m.vocab_size;
  const std::int64_t R = GraphBuilder::mul(B, S);
  const std::int64_t BH = GraphBuilder::mul(B, nh);
  const std::int64_t BHS = GraphBuilder::mul(B, nh, S);
  const std::int64_t BKS = GraphBuilder::mul(B, kv, S);
  const std::int64_t Q = GraphBuilder::mul(nh, hd), KV = GraphBuilder::mul(kv, hd);
  const bool o_bias = m.attention_bias && m.architecture != Architecture::qwen2;

  g.section("embeddings", 1);
  g.embedding("embed_tokens", R, V, H);
  g.mem("rotary cos/sin", Phase::forward, 4.0 * R * hd, hd, "rotary tables");

  g.section("decoder layer", m.num_layers);
  g.rms_norm("input_layernorm", R, H);
  g.linear("q_proj", R, H, Q, m.attention_bias);
  g.linear("k_proj", R, H, KV, m.attention_bias);
  g.linear("v_proj", R, H, KV, m.attention_bias);
  rotary(g, "rotary (q)", BHS, hd);
  rotary(g, "rotary (k)", BKS, hd);
  if (kv != nh) {
    const double elems = double(BKS) * hd + double(BHS) * hd;
    for (const char* which : {"repeat_kv (k)", "repeat_kv (v)"}) {
      g.mem(which, Phase::forward, elems, hd, "gqa repeat");
      if (g.training()) g.mem(which, Phase::backward, elems, hd, "gqa repeat backward");
    }
  }
  g.bmm("matmul (q k^T)", BH, S, hd, S);
  g.vec("scale", Op::divu, BHS, S, OpKind::elementwise);
  g.vec("causal mask add", Op::add, BHS, S, OpKind::elementwise);
  g.vec("softmax", Op::softmax, BHS, S, OpKind::softmax);
  g.dropout("attention dropout", m.attention_dropout, BHS, S);
  g.bmm("matmul (attn v)", BH, S, S, hd);
  g.mem("contiguous", Phase::forward, 2.0 * R * Q, hd, "contiguous");
  g.linear("o_proj", R, Q, H, o_bias);
  g.vec("residual add", Op::add, R, H, OpKind::elementwise);
  g.rms_norm("post_attention_layernorm", R, H);
  g.linear("gate_proj", R, H, F, m.mlp_bias);
  g.linear("up_proj", R, H, F, m.mlp_bias);
  if (m.activation == Activation::relu)
    g.vec("act_fn", Op::relu, R, F, OpKind::elementwise);
  else if (m.activation == Activation::silu)
    g.vec("act_fn", Op::gelu, R, F, OpKind::elementwise, 1, "silu");
  else
    g.vec("act_fn", Op::gelu, R, F, OpKind::elementwise);
  g.vec("gate * up", Op::mul, R, F, OpKind::elementwise, 2);
  g.linear("down_proj", R, F, H, m.mlp_bias);
  g.vec("residual add", Op::add, R, H, OpKind::elementwise);

  g.section("head", 1);
  g.rms_norm("norm", R, H);
  g.linear("lm_head", R, H, V, false);
}

}  // namespace tilecast::detail
