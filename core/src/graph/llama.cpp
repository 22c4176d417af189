// Llama, Mistral and Qwen2 (…ForCausalLM, eager attention): RMSNorm spelt out
// in element-wise ops, rotary embedding (mul, rotate_half's neg and cat, add),
// grouped-query K/V repeated to every head, SwiGLU MLP, untied LM head (Qwen2: q/k/v biases
// without an o_proj bias, as its row says). SiLU,
// RMSNorm's mean/rsqrt, rotary's neg/cat and the GQA repeat have no
// measurements of their own and are forecast by the closest measured class.
#include "graph/blocks/blocks.hpp"

namespace tilecast::detail {

void build_llama(const ModelConfig& m, GraphBuilder& g) {
  AttentionSpec attn = rotary_attention(m);
  attn.out_dropout = m.hidden_dropout;  // 0: no kernel
  rotary_decoder(g, m, attn, gated_mlp(m, m.intermediate_size));
}

}  // namespace tilecast::detail
