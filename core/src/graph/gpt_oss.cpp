// gpt-oss (GptOssForCausalLM, eager attention): Llama's embeddings, RMSNorm and untied head
// around layers of grouped-query attention with biases on q, k, v and o and a learned sink logit
// per head joining each softmax (blocks/attention.cpp, AttentionSpec::sinks), a sliding window on
// the even layers (a decode step there attends to at most sliding_window cached keys, as
// Gemma 2's), and a mixture of experts in every layer in gpt-oss's form (blocks/moe.cpp,
// ExpertForm::gpt_oss). What is forecast as the Llama family's: the norms (gpt-oss multiplies
// by its FP32 weight before the cast back, Llama after: the same kernels) and rotary (gpt-oss
// rotates the two halves with six half-width products and a cat, Llama with rotate_half: about
// the same bytes). The sinks' 64 logits a layer are not counted as parameters.
#include "graph/blocks/blocks.hpp"

namespace tilecast::detail {

void build_gpt_oss(const ModelConfig& m, GraphBuilder& g) {
  const std::int64_t B = g.batch(), S = g.query_len(), H = m.hidden_size, hd = m.head_dim,
                     V = m.vocab_size;
  const std::int64_t R = GraphBuilder::mul(B, S);
  const ArchitectureTraits& t = traits(m);

  AttentionSpec attn = rotary_attention(m);
  attn.sinks = t.attention_sinks;
  attn.fp32_probabilities = false;  // softmax in the scores' own type
  const MoeSpec experts = moe_spec(m);

  g.section("embeddings", 1);
  g.embedding("embed_tokens", R, V, H);
  g.mem("rotary cos/sin", Phase::forward, 4.0 * R * hd, hd, "rotary tables");

  const std::int64_t sliding = sliding_layer_count(m);
  for (const bool window : {true, false}) {
    const std::int64_t count = window ? sliding : m.num_layers - sliding;
    if (count == 0) continue;
    g.section(window ? "decoder layer (sliding)" : "decoder layer (global)", count);
    prenorm_layer(g, m, attn, attended_keys(m, g, window), 0, [&] { moe(g, experts, R); });
  }

  g.section("head", 1);
  decoder_head(g, m);
}

}  // namespace tilecast::detail
