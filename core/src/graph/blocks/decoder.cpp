// The Llama-family decoder stack shared by Llama/Mistral/Qwen2 (llama.cpp) and Phi-3 (phi3.cpp),
// and the attention, MLP and experts specs Gemma, Mixtral, gpt-oss, GPT-J and Falcon start from
// too.
#include <algorithm>

#include "graph/blocks/blocks.hpp"

namespace tilecast::detail {

AttentionSpec rotary_attention(const ModelConfig& m) {
  AttentionSpec attn{.hidden = m.hidden_size,
                     .heads = m.num_heads,
                     .kv_heads = m.num_kv_heads,
                     .head_dim = m.head_dim};
  const ArchitectureTraits& t = traits(m);
  attn.qkv_bias = m.attention_bias;
  attn.out_bias = out_proj_bias(m);
  attn.rotary = true;
  attn.rotary_dim = m.rotary_dim;
  attn.fp32_probabilities = true;  // Hugging Face's eager_attention_forward of these families
  attn.qk_norm = qk_norm(m);
  attn.qk_norm_kind = t.qk_norm_unweighted ? Norm::rms_unweighted : t.norm;
  attn.fp32_rotary = t.fp32_rotary;
  attn.complex_rotary = t.complex_rotary;
  if (t.fused_qkv) {
    attn.names = {"qkv_proj", "", "", "o_proj"};
    attn.fused_qkv = true;
  }
  attn.dropout = m.attention_dropout;
  attn.out_copy_width = m.head_dim;
  if (t.latent_attention) {  // DeepSeek-V3: matmul(q, k^T) * scaling, values v_head_dim wide
    attn.latent = {.q_rank = m.q_lora_rank,
                   .kv_rank = m.kv_lora_rank,
                   .rope_dim = m.qk_rope_head_dim,
                   .v_dim = m.v_head_dim};
    attn.scaling = Scaling::scores_mulu;
    attn.out_copy_width = m.v_head_dim;
  }
  return attn;
}

MlpSpec gated_mlp(const ModelConfig& m, std::int64_t inner) {
  MlpSpec s{.hidden = m.hidden_size,
            .inner = inner,
            .names = {"gate_proj", "up_proj", "down_proj"},
            .gated = true,
            .bias = m.mlp_bias,
            .act = m.activation,
            .act_name = "act_fn"};
  if (traits(m).fused_gate_up) {
    s.names = {"gate_up_proj", "", "down_proj"};
    s.fused_gate_up = true;
  }
  return s;
}

MoeSpec moe_spec(const ModelConfig& m) {
  return {.hidden = m.hidden_size,
          .experts = m.num_experts,
          .top_k = m.experts_per_token,
          .expert_inner = m.expert_intermediate_size,
          .norm_topk = m.norm_topk_prob,
          .act = m.activation,
          .shared_inner = m.shared_expert_intermediate_size,
          .transformers_major = m.transformers_major,
          .implementation = m.experts_implementation,
          .form = traits(m).experts,
          .shared_gate = traits(m).shared_expert_gate};
}

std::int64_t count_layers(const ModelConfig& m, bool (*pick)(const ModelConfig&, std::int64_t)) {
  std::int64_t n = 0;
  for (std::int64_t i = 0; i < m.num_layers; ++i) n += pick(m, i) ? 1 : 0;
  return n;
}

std::int64_t attended_keys(const ModelConfig& m, const GraphBuilder& g, bool sliding) {
  const std::int64_t K = g.context_len();
  return sliding && g.workload().mode == Mode::decode ? std::min(K, m.sliding_window) : K;
}

MlpSpec dense_mlp(const ModelConfig& m, const std::array<std::string_view, 3>& names) {
  return MlpSpec{.hidden = m.hidden_size,
                 .inner = m.intermediate_size,
                 .names = names,
                 .bias = m.mlp_bias,
                 .act = m.activation};
}

void prenorm_layer(GraphBuilder& g, const ModelConfig& m, const AttentionSpec& attn,
                   std::int64_t keys, double dropout, const std::function<void()>& ffn) {
  const std::int64_t R = GraphBuilder::mul(g.batch(), g.query_len()), H = m.hidden_size;
  const ArchitectureTraits& t = traits(m);
  norm(g, t.norm, "input_layernorm", R, H);
  attention(g, attn, g.batch(), g.query_len(), keys);
  if (!t.parallel_residual) norm(g, t.norm, "post_attention_layernorm", R, H);
  ffn();
  residual(g, dropout, R, H);
}

void decoder_head(GraphBuilder& g, const ModelConfig& m) {
  const std::int64_t R = GraphBuilder::mul(g.batch(), g.query_len());
  norm(g, traits(m).norm, "norm", R, m.hidden_size);
  g.linear("lm_head", R, m.hidden_size, m.vocab_size, {.tied = m.tie_word_embeddings});
}

void rotary_decoder(GraphBuilder& g, const ModelConfig& m, const AttentionSpec& attn,
                    const MlpSpec& mlp_spec) {
  const std::int64_t R = GraphBuilder::mul(g.batch(), g.query_len()), hd = m.head_dim;

  g.section("embeddings", 1);
  g.embedding("embed_tokens", R, m.vocab_size, m.hidden_size);
  g.mem("rotary cos/sin", Phase::forward, 4.0 * R * hd, hd, "rotary tables");

  g.section("decoder layer", m.num_layers);
  prenorm_layer(g, m, attn, g.context_len(), m.hidden_dropout, [&] { mlp(g, mlp_spec, R); });

  g.section("head", 1);
  decoder_head(g, m);
  if (m.logit_scale > 0) g.vec("logit_scale", Op::mulu, R, m.vocab_size, OpKind::elementwise);
}

}  // namespace tilecast::detail
