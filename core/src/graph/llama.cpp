// Llama, Mistral and Qwen2 (…ForCausalLM, eager attention): RMSNorm spelt out
// in element-wise ops, rotary embedding (mul, rotate_half's neg and cat, add),
// grouped-query K/V repeated to every head, SwiGLU MLP, untied LM head. SiLU,
// RMSNorm's mean/rsqrt, rotary's neg/cat and the GQA repeat have no
// measurements of their own and are forecast by the closest measured class.
#include "graph/blocks/blocks.hpp"

namespace tilecast::detail {

void build_llama(const ModelConfig& m, GraphBuilder& g) {
  const std::int64_t H = m.hidden_size, hd = m.head_dim;

  AttentionSpec attn{.hidden = H, .heads = m.num_heads, .kv_heads = m.num_kv_heads, .head_dim = hd};
  attn.qkv_bias = m.attention_bias;
  attn.out_bias = m.attention_bias && m.architecture != Architecture::qwen2;
  attn.rotary = true;
  attn.dropout = m.attention_dropout;
  attn.out_dropout = m.hidden_dropout;  // 0: no kernel
  attn.out_copy_width = hd;
  const MlpSpec mlp_spec{.hidden = H,
                         .inner = m.intermediate_size,
                         .names = {"gate_proj", "up_proj", "down_proj"},
                         .gated = true,
                         .bias = m.mlp_bias,
                         .act = m.activation,
                         .act_name = "act_fn"};

  rotary_decoder(g, m, attn, mlp_spec);
}

}  // namespace tilecast::detail
