// Llama 4 (Llama4ForCausalLM, the text model of Llama4ForConditionalGeneration; eager attention):
// Llama's embeddings, RMSNorms, SwiGLU and untied head around two kinds of attention and two of
// feed-forward. Chunked layers (three of four: no_rope_layers' 1s) rotate q and k as complex pairs
// in FP32 and, where use_qk_norm says, L2-norm them per head (RMSNorm without a weight; listed
// before rotary, as the shared block orders them: the same kernels); a decode step there reads at
// most attention_chunk_size cached keys (transformers caches a chunked layer as a sliding window
// of the chunk), and prefill and training compute the full masked scores. Global layers (every
// fourth) take no positions: no rotary, no q/k norm, the queries scaled by a temperature of their
// position (attn_temperature_tuning). Both attend without FP32 probabilities (Llama 4's eager
// attention keeps the scores' type) and scale the scores by a multiply. Layers with experts
// (moe_layers) run Llama4TextMoe (blocks/moe.cpp, ExpertForm::llama4: every expert on every
// token), the others a dense MLP of intermediate_size_mlp.
#include <string>

#include "graph/blocks/blocks.hpp"

namespace tilecast::detail {

void build_llama4(const ModelConfig& m, GraphBuilder& g) {
  const std::int64_t B = g.batch(), S = g.query_len(), H = m.hidden_size, hd = m.head_dim,
                     V = m.vocab_size;
  const std::int64_t R = GraphBuilder::mul(B, S);
  const ArchitectureTraits& t = traits(m);

  AttentionSpec local = rotary_attention(m);
  local.scaling = Scaling::scores_mulu;
  local.fp32_probabilities = false;
  local.rotary = rotary_layer(m, true);
  local.qk_norm = qk_norm_layer(m, true);
  AttentionSpec global = local;
  global.rotary = rotary_layer(m, false);
  global.qk_norm = qk_norm_layer(m, false);
  global.temperature = t.global_nope && m.attn_temperature;
  const MoeSpec experts = moe_spec(m);
  const MlpSpec dense = gated_mlp(m, m.intermediate_size);

  g.section("embeddings", 1);
  g.embedding("embed_tokens", R, V, H);
  g.mem("rotary cos/sin", Phase::forward, 4.0 * R * hd, hd, "rotary tables");  // freqs_cis

  for (const bool chunked : {true, false}) {
    for (const bool with_experts : {true, false}) {
      std::int64_t count = 0;
      for (std::int64_t i = 0; i < m.num_layers; ++i)
        count += is_sliding_layer(m, i) == chunked && is_moe_layer(m, i) == with_experts ? 1 : 0;
      if (count == 0) continue;
      g.section(std::string("decoder layer (") + (chunked ? "chunked" : "global") +
                    (with_experts ? ", experts)" : ", dense)"),
                count);
      prenorm_layer(g, m, chunked ? local : global, attended_keys(m, g, chunked), 0,
                    [&] { sparse_or_dense(g, with_experts, experts, dense, R); });
    }
  }

  g.section("head", 1);
  decoder_head(g, m);
}

}  // namespace tilecast::detail
